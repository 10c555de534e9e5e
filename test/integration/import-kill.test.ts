import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { expect, it } from 'vitest';

/**
 * Issue 37 item 5 (decision 0049): an import killed halfway leaves none of its entries visible.
 * Before, each entry was its own transaction, and a kill left the first few hundred of a file
 * filed, with nothing saying the import was partial.
 */

const child = join(import.meta.dirname, '..', 'helpers', 'import-child.ts');
const entries = 1500;

/** Runs an import of `entries` entries and kills it (SIGKILL) `delayMs` after it starts filing. */
async function killedImport(delayMs: number): Promise<{ path: string; killedWhileFiling: boolean }> {
  const path = join(mkdtempSync(join(tmpdir(), 'alexandria-import-kill-')), 'alexandria.db');
  const running = spawn(process.execPath, ['--import', 'tsx', child, path, String(entries)], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  let output = '';
  const exited = once(running, 'exit');
  await new Promise<void>((resolve) => {
    running.stdout.on('data', (chunk: Buffer) => {
      output += chunk.toString();
      if (output.includes('filing')) resolve();
    });
    running.on('exit', () => resolve());
  });
  await new Promise((resolve) => setTimeout(resolve, delayMs));
  const killedWhileFiling = output.includes('filing') && !output.includes('done') && running.kill('SIGKILL');
  await exited;
  return { path, killedWhileFiling };
}

function filedEntries(path: string): number {
  const db = new Database(path, { readonly: true });
  try {
    const row = db
      .prepare(
        `SELECT COUNT(*) AS count FROM project_entries e JOIN projects p
         ON p.tenant_id = e.tenant_id AND p.id = e.project_id WHERE p.name = 'Imported'`,
      )
      .get() as { count: number };
    return row.count;
  } finally {
    db.close();
  }
}

it('an import killed while it files its entries leaves none of them visible', async () => {
  let killedMidway = 0;
  for (const delayMs of [30, 150, 400]) {
    const { path, killedWhileFiling } = await killedImport(delayMs);
    const count = filedEntries(path);
    expect([0, entries], `killed ${delayMs} ms into filing: ${count} entries visible`).toContain(count);
    if (killedWhileFiling && count === 0) killedMidway += 1;
  }
  // At least one kill came while the import was writing (else the test proved nothing).
  expect(killedMidway).toBeGreaterThan(0);
}, 120_000);
