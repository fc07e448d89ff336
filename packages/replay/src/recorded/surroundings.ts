/**
 * A featureless target (an empty field's inside, a blank area) can be told from any blank place only
 * by what is around it: its surroundings, and whether they stand where a layout expects them.
 */
import {
  type Box,
  clampBox,
  edgeShare,
  edgeSimilarity,
  FEATURELESS_EDGES,
  isFeatureless,
  type RgbaImage,
} from '@mime-desktop/vision';
import { TRACE_TARGET_SIMILARITY } from './checks.ts';
import { type Layout, mapBox } from './layout-map.ts';
import { boxAround } from './recorded-step.ts';

type Point = { x: number; y: number };

/**
 * A featureless target's surroundings (an empty field's inside, a blank area), widened from 4x its box
 * until they hold edges; null when even the whole screen has none around it. The target itself can be
 * told from any blank place only by them.
 */
export function featuredContext(pre: RgbaImage, point: Point, box: Box): Box | null {
  for (const k of [4, 8, 16]) {
    const context = clampBox(boxAround(point, box.width * k, box.height * k), pre);
    if (!isFeatureless(pre, context)) return context;
  }
  return null;
}

/**
 * Whether a featureless target's surroundings are where the layout expects them (alike where they hold
 * something); the figure and threshold that decided, for a miss. A target with edges: null.
 */
export function surroundingsAt(
  pre: RgbaImage,
  live: RgbaImage,
  target: { point: Point; box: Box },
  expected: Layout,
): { ok: boolean; score: number; threshold: number; why: string } | null {
  if (!isFeatureless(pre, target.box)) return null;
  const context = featuredContext(pre, target.point, target.box);
  if (!context) {
    const share = edgeShare(
      pre,
      clampBox(boxAround(target.point, target.box.width * 16, target.box.height * 16), pre),
    );
    return {
      ok: false,
      score: share,
      threshold: FEATURELESS_EDGES,
      why: 'the recorded target and all around it are featureless (no edges): pixels cannot tell it from any blank place',
    };
  }
  const alike = expected.scale === 1 ? edgeSimilarity(pre, context, live, mapBox(expected, context)) : 0;
  return {
    ok: alike >= TRACE_TARGET_SIMILARITY,
    score: alike,
    threshold: TRACE_TARGET_SIMILARITY,
    why: 'the target is featureless (an empty field, a blank area) and its surroundings do not look as recorded',
  };
}
