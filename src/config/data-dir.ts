import { accessSync, constants, statSync } from 'node:fs';
import { join, parse, resolve } from 'node:path';
import { ConfigError, type Environment } from './load-config.js';

/** Where the data folder is, and why there. */
export interface DataDirChoice {
  /** Absolute path of the folder. */
  path: string;
  /**
   * `configured`: ALEXANDRIA_DATA_DIR. `working-directory`: `./data` of the working directory (the
   * default). `user`: the user's data folder, because the working directory is no place for one.
   */
  source: 'configured' | 'working-directory' | 'user';
}

/**
 * The data folder of a command started in `cwd`. ALEXANDRIA_DATA_DIR when set; else `./data` of the
 * working directory, as always, unless the process was started where no data folder belongs and
 * none exists yet: the filesystem root or a folder it may not write (an MCP host starts
 * `alexandria mcp` in `/`). Then it is the user's data folder, `$XDG_DATA_HOME/alexandria`, by
 * default `~/.local/share/alexandria`, the same from any such place (docs/decisions/0026).
 */
export function chooseDataDir(environment: Environment = process.env, cwd = process.cwd()): DataDirChoice {
  const configured = environment.ALEXANDRIA_DATA_DIR?.trim();
  if (configured) return { path: resolve(cwd, configured), source: 'configured' };
  const local = join(cwd, 'data');
  // An existing ./data is kept wherever it is: a container's volume at /data, an earlier install.
  if (isDirectory(local) || !(isRoot(cwd) || !isWritable(cwd))) {
    return { path: local, source: 'working-directory' };
  }
  const xdg = environment.XDG_DATA_HOME?.trim();
  const home = environment.HOME?.trim() || environment.USERPROFILE?.trim();
  const base = xdg ? resolve(xdg) : home ? join(resolve(home), '.local', 'share') : undefined;
  if (!base) {
    throw new ConfigError([
      `ALEXANDRIA_DATA_DIR: not set, and the working directory ${cwd} is no place for a data folder while neither HOME nor XDG_DATA_HOME names a user folder; set ALEXANDRIA_DATA_DIR to the folder that holds (or should hold) Alexandria's data`,
    ]);
  }
  return { path: join(base, 'alexandria'), source: 'user' };
}

function isRoot(path: string): boolean {
  const absolute = resolve(path);
  return parse(absolute).root === absolute;
}

function isWritable(path: string): boolean {
  try {
    accessSync(path, constants.W_OK);
    return true;
  } catch {
    return false;
  }
}

function isDirectory(path: string): boolean {
  try {
    return statSync(path).isDirectory();
  } catch {
    return false;
  }
}
