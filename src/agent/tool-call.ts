// The shape of an agent tool, and how one call of it is checked, gated, run and logged.
import type { z } from 'zod';
import type { ChatToolCall, ChatToolDefinition } from '../ports/chat-model.js';
import type { PromptFence } from '../text/fence.js';
import type { AgentLog } from './agent-types.js';
import type { SourceLedger } from './source-ledger.js';
import { logToolCall, type ToolAccess, type ToolGate } from './tool-gate.js';

/** What a tool needs while it runs. */
export interface ToolContext {
  tenantId: string;
  signal: AbortSignal;
  ledger: SourceLedger;
  fence: PromptFence;
  timeoutMs: number;
  /**
   * The user's question (a follow-up resolved against the earlier turns). With the compact tool
   * set ask_pdf ranks the PDF's chunks by it and the model's question together: a small model asks
   * a PDF "What is the main finding?" where the user asked something precise.
   */
  userQuestion?: string;
  /** Decides on every call before it runs: what it may read, whether it may change projects. */
  gate: ToolGate;
  /** Receives a line per call: its arguments and the decision. */
  log?: AgentLog;
}

/** One tool: its definition for the model, and how to run it. */
export interface AgentTool {
  definition: ChatToolDefinition;
  /** One line for the progress stream, from the parsed arguments. */
  describe(args: never): string;
  /**
   * What the call would read or change (documents, papers, the user's projects), for the gate.
   * Absent: the call reads nothing named by the model (a search).
   */
  access?(args: never, context: ToolContext): ToolAccess;
  run(args: never, context: ToolContext): Promise<string>;
}

/** A tool call checked and ready: what to show while it runs, and how to run it. */
export interface PreparedToolCall {
  progress: string;
  /** The tool's result as text for the model; never throws except when the run is aborted. */
  execute(context: ToolContext): Promise<string>;
}

/**
 * Checks one tool call. Bad arguments, unknown tools and failing services become a text result the
 * model can act on (the run goes on); only an abort of the run propagates. Before a call runs, the
 * run's gate decides on what it would read or change (`ToolGate`); a refused call does nothing.
 * Every call is logged with its arguments and the decision.
 */
export function prepareToolCall(
  tools: Map<string, { schema: z.ZodObject; tool: AgentTool }>,
  call: ChatToolCall,
): PreparedToolCall {
  const answer = (progress: string, content: string): PreparedToolCall => ({
    progress,
    execute: async (context) => {
      logToolCall(context.log, call, 'invalid', content);
      return content;
    },
  });
  const entry = tools.get(call.name);
  if (!entry) {
    return answer(
      `Unknown tool ${call.name}`,
      `Error: there is no tool "${call.name}". Tools: ${[...tools.keys()].join(', ')}.`,
    );
  }
  let parsed: unknown;
  try {
    parsed = call.arguments.trim() === '' ? {} : JSON.parse(call.arguments);
  } catch {
    return answer(
      `Bad arguments for ${call.name}`,
      'Error: the arguments were not valid JSON. Call the tool again with a JSON object.',
    );
  }
  const valid = entry.schema.safeParse(parsed);
  if (!valid.success) {
    const problems = valid.error.issues.map(
      (issue) => `${issue.path.join('.') || 'arguments'}: ${issue.message}`,
    );
    return answer(`Bad arguments for ${call.name}`, `Error: invalid arguments (${problems.join('; ')}).`);
  }
  return {
    progress: entry.tool.describe(valid.data as never),
    async execute(context) {
      const failed = (error: unknown) => {
        context.signal.throwIfAborted();
        const message = error instanceof Error ? error.message : String(error);
        return `Error: ${call.name} failed: ${message}`;
      };
      let access: ToolAccess;
      try {
        access = entry.tool.access?.(valid.data as never, context) ?? {};
      } catch (error) {
        const content = failed(error);
        logToolCall(context.log, call, 'invalid', content);
        return content;
      }
      const decision = await context.gate.check(access);
      if (!decision.allowed) {
        logToolCall(context.log, call, 'refused', decision.reason);
        return decision.message;
      }
      logToolCall(context.log, call, 'allowed');
      try {
        return await entry.tool.run(valid.data as never, context);
      } catch (error) {
        return failed(error);
      }
    },
  };
}
