export * from './archive.ts';
export * from './catalog.ts';
export * from './contents.ts';
export * from './errors.ts';
export * from './install.ts';
export * from './manifest.ts';
export * from './pack.ts';
export * from './safety.ts';
