import { createRequire } from 'node:module';
import type cvModule from '@techstark/opencv-js';

/** The OpenCV.js namespace (WASM). */
export type OpenCv = typeof cvModule;

let loading: Promise<{ cv: OpenCv }> | undefined;

/**
 * Loads OpenCV.js once (about 0.2-0.5 s the first time); later calls share it. It is loaded with
 * `require`, and handed out wrapped, because the module is an Emscripten "thenable" that resolves to
 * itself: an ES import's interop or a plain `await` of it would never settle.
 */
export function loadOpenCv(): Promise<{ cv: OpenCv }> {
  loading ??= new Promise((resolve) => {
    const cv = createRequire(import.meta.url)('@techstark/opencv-js') as OpenCv & {
      onRuntimeInitialized?: () => void;
    };
    if (typeof cv.Mat === 'function') resolve({ cv });
    else cv.onRuntimeInitialized = () => resolve({ cv });
  });
  return loading;
}
