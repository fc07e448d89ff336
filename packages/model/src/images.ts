import type { ChatCompletionContentPartImage } from 'openai/resources/chat/completions';

export interface ImagePartOptions {
  /** Resolution hint for the server. Default: not sent (the server's default, usually `auto`). */
  detail?: 'auto' | 'low' | 'high';
}

/** A chat content part carrying PNG bytes as a `data:image/png;base64,...` URL. */
export function imagePart(
  png: Buffer | Uint8Array,
  options: ImagePartOptions = {},
): ChatCompletionContentPartImage {
  const url = `data:image/png;base64,${Buffer.from(png.buffer, png.byteOffset, png.byteLength).toString('base64')}`;
  return { type: 'image_url', image_url: options.detail ? { url, detail: options.detail } : { url } };
}
