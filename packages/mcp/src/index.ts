/** A token for `serveHttp` when none is given (the schema's `newAccessToken`). */
export { newAccessToken as newToken } from '@mime-desktop/schema';
export { type CatalogEntry, GENERIC_TOOLS, WorkflowCatalog } from './catalog.ts';
export { DesktopLock } from './desktop-lock.ts';
export { DesktopBusyError, McpOptionError, NotFoundError } from './errors.ts';
export {
  type ExportedSkill,
  type ExportSkillOptions,
  exportSkill,
  skillMarkdown,
  skillNameOf,
} from './export-skill.ts';
export { DEFAULT_SESSION_IDLE_MS, type HttpOptions, type HttpServer, serveHttp } from './http.ts';
export {
  CLIENTS,
  configFile,
  type InstallPlan,
  jsonEntry,
  type McpClient,
  planInstall,
  type ServerCommand,
} from './install.ts';
export { type ReplayContext, replayForTool } from './replay-tool.ts';
export { type MimeMcpOptions, MimeMcpServer } from './server.ts';
export { serveStdio } from './stdio.ts';
export { type ToolNameSource, toolNameOf, uniqueToolNames } from './tool-names.ts';
