import type { PaperIdentifier } from '../domain/identifiers.js';
import { defaultProjectId } from '../domain/project.js';
import type { ChatToolCall } from '../ports/chat-model.js';
import type { AgentLog } from './agent-types.js';
import type { DocumentProvenance } from './document-provenance.js';
import { asksToSave } from './save-intent.js';

/** What one tool call would read or change; the gate decides on it before the call runs. */
export interface ToolAccess {
  /** Documents it reads or fetches: `PDF_URL:…`, `PROJ:…` or urls. */
  documents?: string[];
  /** Papers it looks up or files by identifier. */
  identifiers?: PaperIdentifier[];
  /** It files papers in the user's projects: in this project (undefined: the default one). */
  changesProjects?: { projectName?: string | undefined };
}

export type GateDecision =
  | { allowed: true }
  | {
      allowed: false;
      /** Why, for the log. */
      reason: string;
      /** The tool result the model gets instead of the call's. */
      message: string;
    };

/**
 * The one place every tool call of an agent run passes before it runs (docs/decisions/0040): a call
 * that reads or fetches a document, or looks up a paper, runs only when the document entered the
 * run through the user or the run's own results (`DocumentProvenance`); a call that changes the
 * user's projects runs only when the user's own latest message asks to save papers
 * (`asksToSave`), into the default project or one the user named. A refused call does nothing; the
 * model gets a short result saying what it may do instead.
 */
export class ToolGate {
  /** Calls refused so far in this run. */
  refused = 0;

  constructor(
    private readonly options: {
      provenance: DocumentProvenance;
      /** The user's latest message: what decides whether the user asked to save papers. */
      userMessage: string;
    },
  ) {}

  async check(access: ToolAccess): Promise<GateDecision> {
    const decision = await this.decide(access);
    if (!decision.allowed) this.refused += 1;
    return decision;
  }

  private async decide(access: ToolAccess): Promise<GateDecision> {
    const { provenance, userMessage } = this.options;
    if (access.changesProjects) {
      if (!asksToSave(userMessage)) {
        return refuse(
          'the user did not ask to save papers',
          "Refused: this tool changes the user's projects, and runs only when the user's own latest message asks to save or add papers. It does not: answer, and tell the user which paper they could ask you to add.",
        );
      }
      const name = access.changesProjects.projectName?.trim();
      if (name && name !== defaultProjectId && !namedIn(userMessage, name)) {
        return refuse(
          `the user did not name the project "${clip(name, 80)}"`,
          'Refused: the user did not name that project. Leave project_name out (the default project) or use the project the user named.',
        );
      }
    }
    for (const document of access.documents ?? []) {
      if (!(await provenance.checkDocument(document)).allowed) {
        return refuse(
          `document not given by the user or found by the run: ${clip(document, 200)}`,
          notAllowed,
        );
      }
    }
    for (const identifier of access.identifiers ?? []) {
      if (!(await provenance.checkIdentifier(identifier)).allowed) {
        return refuse(
          `paper not given by the user or found by the run: ${identifier.type}:${clip(identifier.value, 200)}`,
          notAllowed,
        );
      }
    }
    return { allowed: true };
  }
}

const notAllowed =
  "Refused: you may read or add only documents and papers that the user gave in their own messages, that are in the user's projects, or that this conversation's searches returned. This one is none of these, and nothing was fetched. Search for the paper, or answer from what you have.";

function refuse(reason: string, message: string): GateDecision {
  return { allowed: false, reason, message };
}

/** Whether the user's message names the project: its name as whole words, case ignored. */
function namedIn(message: string, name: string): boolean {
  const escaped = name
    .toLowerCase()
    .replace(/[.*+?^${}()|[\]\\]/g, '\\$&')
    .replace(/\s+/g, '\\s+');
  return new RegExp(`(?<![\\p{L}\\p{N}])${escaped}(?![\\p{L}\\p{N}])`, 'u').test(message.toLowerCase());
}

/** What a tool call's log line says about the decision on it. */
export type ToolCallDecision = 'allowed' | 'refused' | 'invalid' | 'skipped';

/** Characters of a call's arguments a log line keeps. */
export const loggedArgumentChars = 500;

/**
 * Logs one tool call of an agent run: the tool, its arguments (cut at `loggedArgumentChars`), the
 * decision and why. Refusals are warnings: a model tried something the user did not ask for.
 */
export function logToolCall(
  log: AgentLog | undefined,
  call: ChatToolCall,
  decision: ToolCallDecision,
  reason?: string,
): void {
  if (!log) return;
  const tool = {
    name: clip(call.name, 100),
    arguments: clip(call.arguments, loggedArgumentChars),
    decision,
    ...(reason ? { reason } : {}),
  };
  if (decision === 'refused') log.warn({ tool }, 'agent tool call');
  else log.info({ tool }, 'agent tool call');
}

function clip(text: string, limit: number): string {
  return text.length <= limit ? text : `${text.slice(0, limit - 1)}…`;
}
