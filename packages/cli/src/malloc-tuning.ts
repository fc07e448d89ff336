/**
 * glibc's malloc for a long-lived process that handles large images (`mime mcp`). By default a freed
 * block of more than 128 KiB raises the size under which blocks come from its heaps rather than their
 * own mappings (up to 32 MiB), so after the first screenshots every 4 MB frame lands in a heap that
 * keeps the pages once freed: about 150 MB the server held after a replay. Fixing that size at 128 KiB
 * (`mallopt(M_MMAP_THRESHOLD)`, what `MALLOC_MMAP_THRESHOLD_=131072` does at start) gives each frame's
 * pages back as it is freed, and `malloc_trim` after a replay gives back what the heaps still hold
 * free. Called through koffi (FFI); elsewhere than glibc, nothing to do.
 */
const M_MMAP_THRESHOLD = -3;
const THRESHOLD = 128 * 1024;

/** Whether this process runs on glibc (musl and other platforms report no glibc version). */
function onGlibc(): boolean {
  if (process.platform !== 'linux') return false;
  const report = process.report.getReport() as { header?: { glibcVersionRuntime?: string } };
  return typeof report.header?.glibcVersionRuntime === 'string';
}

/** Gives the pages the process's heaps hold free back to the system. */
export interface MemoryTrim {
  trim(): void;
}

/**
 * Fixes glibc's mmap threshold for this process (see above) and resolves a way to trim its heaps;
 * null without glibc or koffi's binary for this platform (the process runs with the defaults).
 */
export async function keepFreedImagesOut(): Promise<MemoryTrim | null> {
  if (!onGlibc()) return null;
  try {
    const { default: koffi } = await import('koffi');
    const libc = koffi.load('libc.so.6');
    const mallopt = libc.func('int mallopt(int, int)');
    const mallocTrim = libc.func('int malloc_trim(size_t)');
    // A threshold the person set in the environment stays.
    if (process.env.MALLOC_MMAP_THRESHOLD_ === undefined) mallopt(M_MMAP_THRESHOLD, THRESHOLD);
    return { trim: () => mallocTrim(0) };
  } catch {
    return null;
  }
}
