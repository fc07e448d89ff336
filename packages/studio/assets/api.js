/** The studio's API as the page calls it, and the addresses of its files and pages. */

/**
 * Calls the studio's API; resolves `{ok, status, body}`. Writes carry the header a foreign page cannot
 * send. `signal` gives the call up (it rejects with the signal's reason), as a page left does. A call
 * the studio did not answer (it ended, the connection broke) resolves as an error that says so (status
 * 0), so whatever the page shows for a refused call, it shows for that one too.
 */
export async function api(path, { method = 'GET', body, signal } = {}) {
  let response;
  try {
    response = await fetch(path, {
      method,
      signal,
      headers: body === undefined ? {} : { 'content-type': 'application/json', 'x-mime-studio': '1' },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
  } catch (error) {
    if (signal?.aborted) throw error;
    const message = `the studio did not answer (${error.message}): is \`mime studio\` still running?`;
    return { ok: false, status: 0, body: { error: { message } } };
  }
  const type = response.headers.get('content-type') ?? '';
  const data = type.includes('json') ? await response.json() : null;
  return { ok: response.ok, status: response.status, body: data };
}

export const workflowUrl = (id) => `/api/workflows/${encodeURIComponent(id)}`;
export const fileUrl = (id, path) => `${workflowUrl(id)}/file?path=${encodeURIComponent(path)}`;
export const runUrl = (id, run) => `${workflowUrl(id)}/runs/${encodeURIComponent(run)}`;
export const workflowPage = (id) => `#/w/${encodeURIComponent(id)}`;
export const runPage = (id, run) => `${workflowPage(id)}/r/${encodeURIComponent(run)}`;

/**
 * A frame at the size a step card shows it (a third of the page, the whole width on a narrow one):
 * WebP at that width, twice it on a dense screen, rather than the full PNG.
 */
export const cardFrame = (url) => ({
  src: `${url}&w=360`,
  srcset: `${url}&w=360 360w, ${url}&w=720 720w`,
  sizes: '(max-width: 60rem) 100vw, 22rem',
});
