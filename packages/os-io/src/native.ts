/**
 * Lazy loading of the native modules, only after {@link assertDisplay} passed: loading them without
 * a display crashes the process (uiohook aborts, nut-js segfaults) instead of throwing. Node caches
 * the modules; a failed probe is not cached, so a later call probes again.
 */
import { assertDisplay } from './display-probe.ts';

export type NutModule = typeof import('@nut-tree-fork/nut-js');
export type UiohookModule = typeof import('uiohook-napi');

let nutLoading: Promise<NutModule> | undefined;
let uiohookLoading: Promise<UiohookModule> | undefined;

async function importNut(): Promise<NutModule> {
  await assertDisplay();
  const nut = await import('@nut-tree-fork/nut-js');
  // mime paces its own input (see InputTiming); nut-js' built-in pauses (100 ms a mouse call,
  // 300 ms a key) would only slow it down and blur the timing of recorded events.
  nut.mouse.config.autoDelayMs = 0;
  nut.keyboard.config.autoDelayMs = 0;
  return nut;
}

async function importUiohook(): Promise<UiohookModule> {
  await assertDisplay();
  return import('uiohook-napi');
}

/** nut-js, loaded once a display is known to exist. */
export function loadNut(): Promise<NutModule> {
  nutLoading ??= importNut().catch((error: unknown) => {
    nutLoading = undefined;
    throw error;
  });
  return nutLoading;
}

/** uiohook-napi, loaded once a display is known to exist. */
export function loadUiohook(): Promise<UiohookModule> {
  uiohookLoading ??= importUiohook().catch((error: unknown) => {
    uiohookLoading = undefined;
    throw error;
  });
  return uiohookLoading;
}
