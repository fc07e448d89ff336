/**
 * What replay's checks compute from a workflow's recorded frames and keep beside them, in
 * `<workflow>/.cache/`: content-addressed (an entry is named by what it was computed from), so a
 * changed frame or another OCR engine finds no entry and computes anew. Deleting the folder loses
 * nothing but time; a workflow packed or shared leaves it out. Besides `ocr/` (below), `report/`
 * holds the recorded frames as a run's report embeds them (the report's embed-images.ts).
 */
import { z } from 'zod';
import { Box } from './run.ts';

/** The folder of a workflow that holds its checks' cache. */
export const CHECKS_CACHE_FOLDER = '.cache';

/** A word read by OCR, its box in the pixels of the crop it was read on. */
export const CachedOcrWord = z.object({
  text: z.string(),
  confidence: z.number(),
  box: Box,
});

/**
 * `.cache/ocr/<key>.json`: the words OCR read on one crop of a recorded frame. `key` is the SHA-256
 * of the crop's pixels and the engine's version (the file's name), `engine` that version: an entry
 * whose fields do not match its name is not used.
 */
export const OcrCacheEntry = z.object({
  key: z.string().regex(/^[0-9a-f]{64}$/),
  engine: z.string().min(1),
  words: z.array(CachedOcrWord),
});
export type OcrCacheEntry = z.infer<typeof OcrCacheEntry>;
