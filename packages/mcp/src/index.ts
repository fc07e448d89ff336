/** A token for `serveHttp` when none is given (the schema's `newAccessToken`). */
export { newAccessToken as newToken } from '@mime-desktop/schema';
export { type CatalogEntry, GENERIC_TOOLS, WorkflowCatalog } from './catalog.ts';
export { DesktopLock } from './desktop-lock.ts';
export { DesktopBusyError, McpOptionError, NotFoundError } from './errors.ts';
export { BoundedEventStore, DEFAULT_MAX_EVENTS } from './event-store.ts';
export {
  type ExportedSkill,
  type ExportSkillOptions,
  exportSkill,
  skillMarkdown,
  skillNameOf,
} from './export-skill.ts';
export { type HttpOptions, type HttpServer, serveHttp } from './http.ts';
export { DEFAULT_SESSION_IDLE_MS } from './http-sessions.ts';
export {
  CLIENT_SPECS,
  CLIENTS,
  configFile,
  currentPlace,
  entryFor,
  type InstallPlan,
  type McpClient,
  type Place,
  planInstall,
  type ServerCommand,
  writeInstall,
} from './install.ts';
export { REPLAY_TIMEOUT_SEC } from './install-clients.ts';
export { type ReplayContext, replayForTool } from './replay-tool.ts';
export { type MimeMcpOptions, MimeMcpServer } from './server.ts';
export { serveStdio } from './stdio.ts';
export { assignToolNames, type NamedWorkflow, TOOL_NAMES_FILE, toolNameOf } from './tool-names.ts';
