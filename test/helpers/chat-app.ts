import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { FastifyInstance } from 'fastify';
import OpenAI from 'openai';
import type { AgentBudgets, ResearchTools } from '../../src/agent/agent-types.js';
import { defaultBudgets } from '../../src/agent/agent-types.js';
import { GenerativeAnswers } from '../../src/agent/generative-answers.js';
import { ResearchService } from '../../src/agent/research-service.js';
import type { AppServices } from '../../src/app-services.js';
import { type Environment, loadConfig } from '../../src/config/load-config.js';
import { buildApp } from '../../src/http/app.js';
import { type Container, createContainer } from '../../src/main.js';
import { createLogger } from '../../src/platform/logger.js';
import type { ChatModel } from '../../src/ports/chat-model.js';
import { offline } from './test-app.js';

export interface ChatTestApp {
  app: FastifyInstance;
  container: Container;
  /** `http://127.0.0.1:<port>` of the listening server. */
  url: string;
  key: string;
  /** The official OpenAI client pointed at `{url}/api` with our key. */
  client: OpenAI;
  close(): Promise<void>;
}

export interface ChatTestOptions {
  env?: Environment;
  /** The agent's tools (recording fakes, or real services). */
  tools?: (container: Container) => ResearchTools;
  model?: ChatModel;
  budgets?: Partial<AgentBudgets>;
  /** Replaces the research service entirely (for failure tests). */
  research?: (container: Container) => ResearchService;
}

/**
 * A real app (SQLite, blobs, auth, rate limits) listening on 127.0.0.1:0, whose research agent uses
 * the given tools and model, and an OpenAI client for it.
 */
export async function startChatApp(options: ChatTestOptions = {}): Promise<ChatTestApp> {
  const dataDir = await mkdtemp(join(tmpdir(), 'alexandria-chat-'));
  const config = loadConfig({
    ...offline,
    ALEXANDRIA_DATA_DIR: dataDir,
    ALEXANDRIA_LOG_LEVEL: 'silent',
    ...options.env,
  });
  const logger = createLogger({ level: config.server.logLevel });
  const container = await createContainer(config, logger);
  const { key } = await container.services.auth.createKey('tenant-a');
  const tools = options.tools?.(container) ?? { projects: container.services.projects };
  const research =
    options.research?.(container) ??
    new ResearchService({
      modelName: config.chat.modelName,
      model: options.model,
      tools,
      budgets: { ...defaultBudgets, ...options.budgets },
    });
  const services: AppServices = {
    ...container.services,
    research,
    answers: new GenerativeAnswers({ model: options.model, concurrency: 2, timeoutMs: 5000 }),
  };
  const app = await buildApp({
    config,
    logger,
    services,
    rateLimiter: container.rateLimiter,
    probes: container.probes,
    indexVersion: () => container.stores.index.dataVersion(),
    version: 'test',
  });
  await app.listen({ host: '127.0.0.1', port: 0 });
  const address = app.server.address();
  const url = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`;
  return {
    app,
    container,
    url,
    key,
    client: new OpenAI({ baseURL: `${url}/api`, apiKey: key, maxRetries: 0, timeout: 20_000 }),
    async close() {
      await app.close();
      await container.close();
      await rm(dataDir, { recursive: true, force: true });
    },
  };
}
