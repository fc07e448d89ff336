/**
 * The native modules mime's input and hooks load (uiohook-napi, nut-js's libnut), and whether their
 * binaries are built for this machine. On linux-arm64 both ship x86-64 code under an arm64 name
 * (uiohook-napi's `prebuilds/linux-arm64`, libnut-linux declaring `cpu: arm64`): they would fail to
 * load with an unhelpful dlopen error, so `mime doctor` reads their ELF headers first.
 */
import { existsSync } from 'node:fs';
import { open } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import type { DoctorCheck } from '@mime-desktop/schema';

/** ELF `e_machine` values, by Node's `process.arch` names. */
const ELF_MACHINES: Record<number, string> = {
  3: 'ia32',
  40: 'arm',
  62: 'x64',
  183: 'arm64',
  258: 'loong64',
};

/** The architecture an ELF shared object is built for (`x64`, `arm64`...), or null when it is not ELF. */
export async function elfArch(file: string): Promise<string | null> {
  const handle = await open(file, 'r');
  try {
    const header = Buffer.alloc(20);
    const { bytesRead } = await handle.read(header, 0, 20, 0);
    if (bytesRead < 20 || header.readUInt32BE(0) !== 0x7f454c46) return null;
    const machine = header[5] === 2 ? header.readUInt16BE(18) : header.readUInt16LE(18);
    return ELF_MACHINES[machine] ?? `machine ${machine}`;
  } finally {
    await handle.close();
  }
}

/** A native module and the binary it loads on `platform`-`arch` (node-gyp-build's order: a local build first). */
export interface NativeBinary {
  module: string;
  file: string | null;
}

/** Where a package is installed, from `from` (a file that depends on it); null when it is not. */
function packageDir(name: string, from: string): string | null {
  try {
    return dirname(createRequire(from).resolve(`${name}/package.json`));
  } catch {
    return null;
  }
}

function firstExisting(...files: string[]): string | null {
  return files.find((file) => existsSync(file)) ?? null;
}

/** The binaries uiohook-napi and libnut load on Linux for `arch`. */
export function linuxNativeBinaries(arch: string = process.arch): NativeBinary[] {
  const uiohook = packageDir('uiohook-napi', import.meta.url);
  const nutjs = packageDir('@nut-tree-fork/nut-js', import.meta.url);
  const libnut = nutjs && packageDir('@nut-tree-fork/libnut', join(nutjs, 'package.json'));
  const libnutLinux = libnut && packageDir('@nut-tree-fork/libnut-linux', join(libnut, 'package.json'));
  return [
    {
      module: 'uiohook-napi',
      file:
        uiohook &&
        firstExisting(
          join(uiohook, 'build', 'Release', 'uiohook_napi.node'),
          join(uiohook, 'prebuilds', `linux-${arch}`, 'uiohook-napi.node'),
        ),
    },
    {
      module: '@nut-tree-fork/libnut-linux',
      file: libnutLinux && firstExisting(join(libnutLinux, 'build', 'Release', 'libnut.node')),
    },
  ];
}

const BUILD_FROM_SOURCE =
  'build them for this machine from source: apt install build-essential cmake libx11-dev libxtst-dev libxt-dev libxinerama-dev libx11-xcb-dev libxkbcommon-dev libxkbcommon-x11-dev libxkbfile-dev libpng-dev; then `npx node-gyp rebuild` in the uiohook-napi folder, and build github.com/nut-tree/libnut with cmake-js into libnut-linux/build/Release/libnut.node';

/**
 * Whether the native input and hook modules are built for this machine (Linux; other platforms are
 * not checked). `arch` defaults to this process's.
 */
export async function checkNativeModules(
  platform: NodeJS.Platform = process.platform,
  arch: string = process.arch,
): Promise<DoctorCheck> {
  if (platform !== 'linux') {
    return { name: 'native modules', status: 'skip', detail: `not checked on ${platform}` };
  }
  const wrong: string[] = [];
  for (const { module, file } of linuxNativeBinaries(arch)) {
    if (file === null) {
      wrong.push(`${module} has no binary for linux-${arch}`);
      continue;
    }
    const built = await elfArch(file).catch(() => null);
    if (built !== arch) wrong.push(`${module} ships ${built ?? 'no ELF'} code for linux-${arch} (${file})`);
  }
  if (wrong.length === 0) {
    return {
      name: 'native modules',
      status: 'ok',
      detail: `uiohook-napi and libnut built for linux-${arch}`,
    };
  }
  return {
    name: 'native modules',
    status: 'fail',
    detail: `${wrong.join('; ')}: recording and input cannot load`,
    fix: BUILD_FROM_SOURCE,
  };
}
