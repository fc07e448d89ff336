export {
  ACCESSIBLE_CHROMIUM_FLAG,
  type Accessibility,
  accessibleAppEnv,
  accessibleCommand,
  type FindOptions,
  type OpenedAccessibility,
  type UnplacedWindows,
} from './accessibility.ts';
export { captureFrame, type EncodePngOptions, encodePng, frameToRgb, type RawFrame } from './capture.ts';
export { createDesktop } from './create-desktop.ts';
export type { ActiveWindow, Desktop } from './desktop.ts';
export { chooseAdapter, compositorOf, type DesktopAdapter } from './desktop-session.ts';
export { diagnoseDesktop } from './diagnose.ts';
export {
  acquireDisplayLock,
  type DisplayKey,
  type DisplayLockHolder,
  type DisplayLockOptions,
  defaultDisplayLockDir,
  displayKeys,
  displayLockHolder,
  type HeldDisplayLock,
  holderAlive,
} from './display-lock.ts';
export {
  assertDisplay,
  type DisplayFacts,
  type ProbeDisplayOptions,
  probeDisplay,
  type SessionType,
} from './display-probe.ts';
export {
  AbortedError,
  type AbortReason,
  DesktopFailureError,
  DisplayBusyError,
  type DisplayHolderFacts,
  DisplayLockError,
  DisplayNotFoundError,
  InvalidInputError,
  UnsupportedPlatformError,
} from './errors.ts';
export { DEFAULT_ABORT_HOTKEY, type FailSafeOptions } from './fail-safe.ts';
export { FrameRing, type FrameRingOptions } from './frame-ring.ts';
export { createGnomeDesktop } from './gnome-desktop.ts';
export {
  type HookButton,
  type HookEvent,
  type HookKeyEvent,
  type HookMouseButtonEvent,
  type HookMouseMoveEvent,
  type HookSubscription,
  type HookWheelEvent,
  type StartHooksOptions,
  startHooks,
} from './hooks.ts';
export type { ClickOptions, DragOptions, MoveOptions, ScrollOptions } from './input.ts';
export {
  DEFAULT_INPUT_TIMING,
  describeToolkitTyping,
  type InputTiming,
  TOOLKIT_TYPING,
  type TypingTiming,
} from './input-pacing.ts';
export { type HookKeyName, typedChar } from './keymap.ts';
export { checkNativeModules, elfArch, linuxNativeBinaries, type NativeBinary } from './native-modules.ts';
export type { DesktopOptions } from './nut-desktop.ts';
export { openAccessibility } from './open-accessibility.ts';
export {
  type PrivateDisplay,
  type PrivateDisplayOptions,
  startPrivateDisplay,
  startSessionBus,
} from './private-display.ts';
export { epochNow } from './time.ts';
export type {
  LogicalPoint,
  LogicalSize,
  MouseButton,
  PhysicalSize,
  ScreenGeometry,
  ScrollDirection,
} from './units.ts';
export {
  type CloseAppOptions,
  closeApp,
  describeWindowQuery,
  type FoundWindow,
  findWindows,
  focusedWindow,
  launchApp,
  listWindows,
  type WaitForWindowOptions,
  type WindowBox,
  type WindowQuery,
  waitForWindow,
  windowAt,
  windowMatches,
} from './windows.ts';
export type { Toolkit } from './x-toolkit.ts';
