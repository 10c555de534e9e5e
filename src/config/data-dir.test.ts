import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chooseDataDir } from './data-dir.js';
import { ConfigError } from './load-config.js';

let work: string;
beforeAll(async () => {
  work = await mkdtemp(join(tmpdir(), 'alexandria-data-dir-'));
});
afterAll(async () => {
  await rm(work, { recursive: true, force: true });
});

describe('chooseDataDir', () => {
  it('takes ALEXANDRIA_DATA_DIR, relative to the working directory', () => {
    expect(chooseDataDir({ ALEXANDRIA_DATA_DIR: 'store', HOME: '/home/u' }, work)).toEqual({
      path: join(work, 'store'),
      source: 'configured',
    });
    expect(chooseDataDir({ ALEXANDRIA_DATA_DIR: '/srv/alexandria' }, '/')).toEqual({
      path: '/srv/alexandria',
      source: 'configured',
    });
  });

  it('keeps ./data of a writable working directory, as before', () => {
    expect(chooseDataDir({ HOME: '/home/u' }, work)).toEqual({
      path: join(work, 'data'),
      source: 'working-directory',
    });
  });

  it('uses the user data folder when started in / (how MCP hosts start servers), XDG_DATA_HOME first', () => {
    expect(chooseDataDir({ HOME: '/home/u' }, '/')).toEqual({
      path: '/home/u/.local/share/alexandria',
      source: 'user',
    });
    expect(chooseDataDir({ HOME: '/home/u', XDG_DATA_HOME: '/xdg/data' }, '/')).toEqual({
      path: '/xdg/data/alexandria',
      source: 'user',
    });
  });

  it('names ALEXANDRIA_DATA_DIR when there is no place to choose', () => {
    expect(() => chooseDataDir({}, '/')).toThrow(ConfigError);
    expect(() => chooseDataDir({}, '/')).toThrow(/ALEXANDRIA_DATA_DIR: not set.*set ALEXANDRIA_DATA_DIR/);
  });
});
