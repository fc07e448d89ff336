import { z } from 'zod';

/**
 * An element of an app's accessibility tree, as recorded and looked up again at replay: what the app
 * says the element is (role, name, the label it is known by), where it sits in its window, and where
 * it was on the screen. Names are toolkit-neutral: AT-SPI, UI Automation and AX adapters all map to
 * them.
 */
const text = (max: number) => z.string().max(max);

/** One level of the path from the window to the element. */
export const ElementPathStep = z.strictObject({
  role: text(64),
  name: text(1024),
  index: z.int().nonnegative().describe('Position among the parent’s children.'),
});
export type ElementPathStep = z.infer<typeof ElementPathStep>;

/** A box in logical screen pixels that may be empty (an element the toolkit has not laid out). */
export const ElementBox = z.strictObject({
  x: z.number(),
  y: z.number(),
  width: z.number().nonnegative(),
  height: z.number().nonnegative(),
});
export type ElementBox = z.infer<typeof ElementBox>;

export const AccessibleElement = z
  .strictObject({
    role: text(64).min(1).describe('The element’s role, e.g. "push button", "entry", "text".'),
    name: text(1024).default('').describe('Its accessible name ("" when it has none).'),
    label: text(1024)
      .nullable()
      .default(null)
      .describe(
        'The visible label it is known by when it has no name: its labelled-by, or the label beside it.',
      ),
    app: text(256).describe('The application’s accessible name.'),
    window: z.strictObject({ role: text(64), name: text(1024) }).describe('Its top-level window.'),
    path: z
      .array(ElementPathStep)
      .max(64)
      .describe('From the window (not included) down to the element (included).'),
    states: z.array(text(32)).max(64).default([]).describe('E.g. "focused", "editable", "showing".'),
    extents: ElementBox.nullable().default(null).describe('Where it was on the screen, logical px.'),
    text: text(65_536)
      .nullable()
      .optional()
      .describe('Its text (after a typing burst); never kept for password fields or secret typing.'),
  })
  .describe('An element of the app’s accessibility tree.');
export type AccessibleElement = z.infer<typeof AccessibleElement>;

/** An element's identity as a workflow keeps it: its text stays in the recording. */
export const ElementIdentity = AccessibleElement.omit({ text: true });
export type ElementIdentity = z.infer<typeof ElementIdentity>;

/** The identity of an element, without its text. */
export function identityOf(element: AccessibleElement): ElementIdentity {
  const { text: _text, ...identity } = element;
  return identity;
}

/** Roles of a whole document: what a click on a page whose tree was not there yet names. */
const DOCUMENT_ROLES = new Set(['document web', 'document frame', 'document email', 'document presentation']);

/**
 * Whether an element is no target of an input: a window itself (a frame, a dialog: it has no path
 * inside one) or a whole web document. Such an element is what a lookup names when the tree did not
 * know better, and replaying towards it would aim at the window's middle.
 */
export function isWholeWindow(element: Pick<AccessibleElement, 'path' | 'role'>): boolean {
  return element.path.length === 0 || DOCUMENT_ROLES.has(element.role);
}

/** Roles of elements that hold the targets of input rather than being one (a page's landmark, a panel). */
const CONTAINER_ROLES = new Set([
  'landmark',
  'section',
  'form',
  'panel',
  'filler',
  'grouping',
  'scroll pane',
  'viewport',
  'layered pane',
  'split pane',
]);

/**
 * Whether an element is a container, not a target: what a lookup at a point names while a browser is
 * still building the page's tree there, or where the point falls between the page's controls.
 */
export function isContainer(element: Pick<AccessibleElement, 'role'>): boolean {
  return CONTAINER_ROLES.has(element.role);
}

/** Roles of elements that fill what their window leaves them (a notebook, a drawing area, a table). */
const WINDOW_FILLING_ROLES = new Set([
  'page tab list',
  'canvas',
  'terminal',
  'table',
  'tree table',
  ...DOCUMENT_ROLES,
]);

/**
 * Whether an element's size follows its window's rather than the app's scale: a container, a notebook,
 * a multi-line text area. A smaller window makes it smaller, a bigger UI scale does not make it bigger:
 * its extents tell where the app's layout stands, never at what scale.
 */
export function followsWindow(element: Pick<AccessibleElement, 'role' | 'states'>): boolean {
  return (
    isContainer(element) || WINDOW_FILLING_ROLES.has(element.role) || element.states.includes('multi-line')
  );
}

/** Roles whose text is a secret whatever was typed. */
const SECRET_ROLES = new Set(['password text', 'password']);

/** Whether an element holds a secret (its text is never stored). */
export function isSecretElement(element: Pick<AccessibleElement, 'role' | 'states'>): boolean {
  return SECRET_ROLES.has(element.role) || element.states.includes('protected');
}

/** A widget class's name (`GtkEntry`, `QLineEdit`): what GTK 4 answers as the name of an unlabelled widget. */
const TOOLKIT_CLASS = /^(Gtk|Gdk|Adw|Q)[A-Z][a-z][A-Za-z]*$/;

/** The name a person would call the element by: its name, unless that is only its widget class, else its label. */
export function shownName(element: Pick<AccessibleElement, 'name' | 'label'>): string | null {
  const name = TOOLKIT_CLASS.test(element.name) ? '' : element.name;
  return name || element.label || null;
}

/** How an element reads in a message: `push button "Send"` or `entry labelled "City"`. */
export function describeElement(element: Pick<AccessibleElement, 'role' | 'name' | 'label'>): string {
  if (element.name && !TOOLKIT_CLASS.test(element.name))
    return `${element.role} ${JSON.stringify(element.name)}`;
  if (element.label) return `${element.role} labelled ${JSON.stringify(element.label)}`;
  return `unnamed ${element.role}`;
}
