/**
 * The installed uiohook-napi and libnut binaries, read as they are: this machine's are right, and the
 * linux-arm64 ones are x86-64 code (uiohook-napi's prebuild, libnut-linux's only build), which
 * `mime doctor` must say before anything tries to load them.
 */
import { describe, expect, it } from 'vitest';
import { checkNativeModules, elfArch, linuxNativeBinaries } from '../src/native-modules.ts';

describe('native modules', () => {
  it("finds both binaries for this machine, built for this machine's architecture", async () => {
    const binaries = linuxNativeBinaries();
    expect(binaries.map((b) => b.module)).toEqual(['uiohook-napi', '@nut-tree-fork/libnut-linux']);
    for (const { file } of binaries) {
      expect(file).not.toBeNull();
      expect(await elfArch(file as string)).toBe(process.arch);
    }
    expect(await checkNativeModules()).toMatchObject({ name: 'native modules', status: 'ok' });
  });

  it('tells that the linux-arm64 binaries hold x86-64 code, and how to build them', async () => {
    const [uiohook] = linuxNativeBinaries('arm64');
    expect(uiohook?.file).toMatch(/prebuilds\/linux-arm64\/uiohook-napi\.node$/);
    expect(await elfArch(uiohook?.file as string)).toBe('x64');
    const check = await checkNativeModules('linux', 'arm64');
    expect(check.status).toBe('fail');
    expect(check.detail).toMatch(
      /^uiohook-napi ships x64 code for linux-arm64 \(.*\); @nut-tree-fork\/libnut-linux ships x64 code for linux-arm64 \(.*libnut\.node\): recording and input cannot load$/,
    );
    expect(check.fix).toContain('npx node-gyp rebuild');
  });

  it('reads an ELF header, and nothing from a file that is not one', async () => {
    expect(await elfArch(process.execPath)).toBe(process.arch);
    expect(await elfArch(new URL(import.meta.url).pathname)).toBeNull();
    expect(await checkNativeModules('darwin', 'arm64')).toMatchObject({ status: 'skip' });
  });
});
