/**
 * App windows from the accessibility trees, where the compositor tells no program its windows
 * (GNOME's mutter): each app's top-level frames and dialogs on screen, with their titles, the app's
 * name as their class, and the process that owns them. No places: a tree says a window exists, not
 * where it is.
 */
import { ACCESSIBLE, AtspiCalls, DBUS, type Ref } from './atspi-calls.ts';
import { connectBuses } from './atspi-connect.ts';
import { ROOT, VISIBLE } from './atspi-tree.ts';
import { UnsupportedPlatformError } from './errors.ts';
import { appIdNames } from './sway-ipc.ts';

/** The roles of an app's top-level elements that are windows a person sees. */
const WINDOW_ROLES = new Set(['frame', 'dialog', 'window', 'alert', 'file chooser']);

/** One top-level element of an app's tree, as read from the bus. */
export interface TreeTopLevel {
  /** The element's bus name and path, joined: the window's id. */
  id: string;
  role: string;
  title: string;
  states: readonly string[];
}

/** An app of the registry with its top-level elements. */
export interface TreeApp {
  name: string;
  pid: number | null;
  topLevels: readonly TreeTopLevel[];
}

/** A window the trees name: no box (nobody tells it), classes from the app's name. */
export interface TreeWindow {
  id: string;
  title: string;
  classes: string[];
  pid: number | null;
  /** Matched like a native Wayland window: the class without case. */
  native: true;
}

/** The windows of `apps` a person sees: frames, dialogs and the like that are showing or visible. */
export function windowsOfApps(apps: readonly TreeApp[]): TreeWindow[] {
  return apps.flatMap((app) =>
    app.topLevels
      .filter((t) => WINDOW_ROLES.has(t.role) && VISIBLE(t.states))
      .map((t) => ({
        id: t.id,
        title: t.title,
        classes: app.name ? appIdNames(app.name) : [],
        pid: app.pid,
        native: true as const,
      })),
  );
}

async function readApp(calls: AtspiCalls, app: Ref): Promise<TreeApp> {
  const [name, pid, children] = await Promise.all([
    calls.prop(app, ACCESSIBLE, 'Name').catch(() => ''),
    calls.call(DBUS, DBUS[0], 'GetConnectionUnixProcessID', 's', [app[0]]).then(
      ([p]) => (typeof p === 'number' ? p : null),
      () => null,
    ),
    calls.children(app).catch(() => [] as Ref[]),
  ]);
  const topLevels = await Promise.all(
    children.map(async (ref): Promise<TreeTopLevel | null> => {
      try {
        const [node, states] = await Promise.all([calls.node(ref), calls.states(ref)]);
        return { id: `${ref[0]}${ref[1]}`, role: node.role, title: node.name, states };
      } catch {
        // Closed while being read: not a window any more.
        return null;
      }
    }),
  );
  return {
    name: String(name ?? ''),
    pid,
    topLevels: topLevels.filter((t): t is TreeTopLevel => t !== null),
  };
}

/**
 * The app windows the accessibility trees of the session in `env` name now; throws
 * `MIME_UNSUPPORTED_PLATFORM` when there is no accessibility bus to ask.
 */
export async function accessibleWindows(env: NodeJS.ProcessEnv): Promise<TreeWindow[]> {
  const address = env.DBUS_SESSION_BUS_ADDRESS?.trim();
  const noBus = (why: string) =>
    new UnsupportedPlatformError(
      `GNOME (mutter) tells no program its windows, and mime finds them through the accessibility trees there, but ${why}: run mime inside the session with at-spi2-core installed (./setup.sh does)`,
    );
  if (!address) throw noBus('DBUS_SESSION_BUS_ADDRESS is not set');
  const buses = await connectBuses(address).catch((error: Error) => {
    throw noBus(`the accessibility bus does not answer (${error.message})`);
  });
  try {
    const calls = new AtspiCalls(buses.bus);
    const apps = await calls.children(ROOT);
    return windowsOfApps(await Promise.all(apps.map((app) => readApp(calls, app))));
  } finally {
    buses.bus.disconnect();
    buses.session.disconnect();
  }
}
