import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import type { AppServices } from '../app-services.js';
import { boundedMessage } from '../domain/error-message.js';
import { AppError } from '../domain/errors.js';

/** What every tool handler may use: the caller's tenant and the services (never adapters). */
export interface ToolContext {
  tenantId: string;
  services: AppServices;
  /** Absolute base URL of the service, for links an agent can follow. */
  publicUrl: string;
  logger?: ErrorLogger;
}

/** The one logging call tools make (pino's and Fastify's request logger both fit). */
export interface ErrorLogger {
  error(object: unknown, message?: string): void;
}

/** Registers a group of tools on a server for one caller. */
export type ToolModule = (server: McpServer, context: ToolContext) => void;

/** A plain-text result (chunk text, markdown tables): what an LLM reads best. */
export function textResult(text: string): CallToolResult {
  return { content: [{ type: 'text', text }] };
}

/**
 * A JSON result, compact (no indentation: tokens cost money), with the next-step hint first so a
 * model sees it even when it skims.
 */
export function jsonResult(value: unknown, hint?: string): CallToolResult {
  const text = JSON.stringify(hint === undefined ? value : { hint, result: value });
  return { content: [{ type: 'text', text }] };
}

/**
 * A tool error (`isError: true`) carrying exactly the message the REST API gives for the same
 * failure, with its code, parameter and HTTP status in `_meta` for clients that branch on them.
 * Unexpected errors are logged and hidden, as the HTTP boundary does.
 */
export function errorResult(error: unknown, logger?: ErrorLogger): CallToolResult {
  const appError =
    error instanceof AppError ? error : new AppError('internal', 'Internal server error', { cause: error });
  if (appError.code === 'internal') logger?.error({ err: error }, 'MCP tool failed');
  return {
    isError: true,
    content: [{ type: 'text', text: boundedMessage(appError.message) }],
    _meta: {
      code: appError.code,
      status: appError.status,
      ...(appError.param ? { param: appError.param } : {}),
      ...(appError.retryAfterSeconds !== undefined
        ? { retry_after_seconds: appError.retryAfterSeconds }
        : {}),
    },
  };
}

/** Runs a handler, turning any throw into an MCP tool error. */
export async function guarded(
  context: ToolContext,
  run: () => Promise<CallToolResult>,
): Promise<CallToolResult> {
  try {
    return await run();
  } catch (error) {
    return errorResult(error, context.logger);
  }
}
