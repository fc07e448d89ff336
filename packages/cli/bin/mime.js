#!/usr/bin/env node
// The `mime` binary: runs the TypeScript sources directly through tsx, so a clean checkout needs no build.
import { register } from 'tsx/esm/api';

register();
await import('../src/main.ts');
