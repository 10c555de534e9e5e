// Nothing restarted a replica or a worker that exited (no unit, no container): the systemd units
// shipped in deploy/systemd restart them always. Checked by parsing them and, where the machine
// has it, by `systemd-analyze verify` (any warning it prints fails the test: it exits 0 on
// directives it ignores).
import { spawnSync } from 'node:child_process';
import { copyFileSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { sections } from '../../src/config/sections/index.js';

const folder = join(import.meta.dirname, '..', '..', 'deploy', 'systemd');
const bin = join(import.meta.dirname, '..', '..', 'bin', 'alexandria.js');
const units = { serve: 'alexandria-serve@.service', worker: 'alexandria-worker@.service' } as const;

/** The unit's directives per section (a directive given twice keeps every value). */
function parseUnit(text: string): Map<string, Map<string, string[]>> {
  const sections = new Map<string, Map<string, string[]>>();
  let current: Map<string, string[]> | undefined;
  for (const raw of text.split('\n')) {
    const line = raw.trim();
    if (line === '' || line.startsWith('#')) continue;
    const header = /^\[(\w+)\]$/.exec(line);
    if (header?.[1]) {
      current = new Map();
      sections.set(header[1], current);
      continue;
    }
    const directive = /^(\w+)=(.*)$/.exec(line);
    if (!directive?.[1] || !current) throw new Error(`not a unit line: ${line}`);
    current.set(directive[1], [...(current.get(directive[1]) ?? []), directive[2] ?? '']);
  }
  return sections;
}

const hasSystemdAnalyze = spawnSync('systemd-analyze', ['--version'], { stdio: 'ignore' }).status === 0;

describe('the systemd units in deploy/systemd', () => {
  for (const [command, file] of Object.entries(units)) {
    it(`${file} runs \`alexandria ${command}\` and restarts it whenever it exits`, () => {
      const unit = parseUnit(readFileSync(join(folder, file), 'utf8'));
      const service = unit.get('Service');
      expect(service?.get('ExecStart')).toEqual([`/usr/local/bin/alexandria ${command}`]);
      expect(service?.get('Restart')).toEqual(['always']);
      expect(service?.get('KillSignal')).toEqual(['SIGTERM']);
      expect(service?.get('EnvironmentFile')).toEqual(['/etc/alexandria/alexandria.env']);
      // Each process its own data folder, named by the instance.
      expect(service?.get('Environment')?.some((value) => /^ALEXANDRIA_DATA_DIR=.*%i$/.test(value))).toBe(
        true,
      );
      expect(unit.get('Unit')?.get('StartLimitIntervalSec')).toEqual(['0']);
      expect(unit.get('Install')?.get('WantedBy')).toEqual(['multi-user.target']);
    });
  }

  it('makes the replica an API replica that runs no jobs', () => {
    const service = parseUnit(readFileSync(join(folder, units.serve), 'utf8')).get('Service');
    expect(service?.get('Environment')).toContain('ALEXANDRIA_ROLE=api');
    expect(service?.get('Environment')).toContain('ALEXANDRIA_PORT=%i');
  });

  it.skipIf(!hasSystemdAnalyze)('passes systemd-analyze verify without a warning', () => {
    const copy = mkdtempSync(join(tmpdir(), 'alexandria-units-'));
    try {
      for (const file of Object.values(units)) {
        // Verify checks that the command exists: point it at this checkout's executable.
        const text = readFileSync(join(folder, file), 'utf8').replaceAll('/usr/local/bin/alexandria', bin);
        writeFileSync(join(copy, file), text);
      }
      copyFileSync(join(folder, 'alexandria.env.example'), join(copy, 'alexandria.env'));
      const verified = spawnSync(
        'systemd-analyze',
        ['verify', '--man=no', './alexandria-serve@8080.service', './alexandria-worker@1.service'],
        { cwd: copy, encoding: 'utf8' },
      );
      expect(`${verified.stdout}${verified.stderr}`.trim()).toBe('');
      expect(verified.status).toBe(0);
    } finally {
      rmSync(copy, { recursive: true, force: true });
    }
  });

  it('ships an environment file with the shared settings as the config loader names them', () => {
    const names = readFileSync(join(folder, 'alexandria.env.example'), 'utf8')
      .split('\n')
      .filter((line) => /^[A-Z_]+=/.test(line))
      .map((line) => line.slice(0, line.indexOf('=')));
    const configured = new Set<string>(
      Object.values(sections).flatMap((section) => Object.values(section).map((variable) => variable.name)),
    );
    // The S3 credentials are the AWS SDK's own variables.
    expect(names.filter((name) => !configured.has(name) && !name.startsWith('AWS_'))).toEqual([]);
  });
});
