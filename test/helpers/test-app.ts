import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { FastifyInstance } from 'fastify';
import { type Environment, loadConfig } from '../../src/config/load-config.js';
import { createHttpApp } from '../../src/http/server.js';
import { type Container, createContainer } from '../../src/main.js';
import { createLogger } from '../../src/platform/logger.js';
import { multipartBody } from './multipart.js';

export interface TestApp {
  app: FastifyInstance;
  container: Container;
  /** An API key of tenant "tenant-a". */
  key: string;
  dataDir: string;
  /** Creates another key (for another tenant by default). */
  newKey(tenant?: string): Promise<string>;
  close(): Promise<void>;
}

/**
 * The configuration every test starts from: no upstream source (the service's default federates the
 * open sources; decision 0045). A test about federation names its sources, and their loopback fakes
 * in ALEXANDRIA_SOURCE_URLS; test/setup/loopback-only.ts refuses any other host.
 */
export const offline = { ALEXANDRIA_SOURCES: 'none' } as const;

/**
 * A real app on a fresh data folder (real SQLite file, real blob folder), driven in-process with
 * `app.inject`, offline unless `env` names sources. `env` overrides configuration variables.
 */
export async function createTestApp(env: Environment = {}): Promise<TestApp> {
  const dataDir = await mkdtemp(join(tmpdir(), 'alexandria-test-'));
  const config = loadConfig({
    ...offline,
    ALEXANDRIA_DATA_DIR: dataDir,
    ALEXANDRIA_LOG_LEVEL: 'silent',
    ...env,
  });
  const container = await createContainer(config, createLogger({ level: config.server.logLevel }));
  const { key } = await container.services.auth.createKey('tenant-a');
  const app = await createHttpApp(container);
  await app.ready();
  return {
    app,
    container,
    key,
    dataDir,
    newKey: async (tenant = 'tenant-b') => (await container.services.auth.createKey(tenant)).key,
    async close() {
      await app.close();
      await container.close();
      await rm(dataDir, { recursive: true, force: true });
    },
  };
}

/** Headers carrying a key the way our own clients send it. */
export const withKey = (key: string) => ({ 'x-alexandria-api-key': key });

/**
 * Where the large shared real test data lives (`ALEXANDRIA_TEST_DATA`, else ../shared/data beside
 * the project). Only some machines have it: check with `needsSharedData` (./requirements.ts) first.
 */
export { sharedData } from './requirements.js';

/** `add_to_project` with one PDF uploaded as multipart field `file`, as curl -F sends it. */
export function uploadPdf(
  t: TestApp,
  key: string,
  filename: string,
  bytes: Uint8Array,
  query = 'project_name=Reading',
) {
  const form = multipartBody([{ name: 'file', filename, contentType: 'application/pdf', data: bytes }]);
  return t.app.inject({
    method: 'POST',
    url: `/api/add_to_project?${query}`,
    headers: { ...withKey(key), 'content-type': form.contentType },
    payload: form.body,
  });
}
