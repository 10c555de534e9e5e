// Runs a research agent in a test and collects what it streamed.
import { expect } from 'vitest';
import type { AgentEvent, ResearchRequest, RunSummary } from '../../src/agent/agent-types.js';
import { auditCitations } from '../../src/agent/citation-audit.js';
import type { ChatMessage } from '../../src/domain/chat.js';

/** A request of tenant `t` (or `tenantId`) for one question or a whole conversation. */
export function agentRequest(messages: string | ChatMessage[], tenantId = 't'): ResearchRequest {
  return {
    tenantId,
    messages: typeof messages === 'string' ? [{ role: 'user', content: messages }] : messages,
    signal: new AbortController().signal,
  };
}

/**
 * What a run streamed: the answer, the progress lines, the summary and every event. Whatever the
 * model wrote, the answer that reaches the client must cite only retrieved records.
 */
export async function collectRun(events: AsyncIterable<AgentEvent>) {
  let content = '';
  let progress = '';
  let summary: RunSummary | undefined;
  const all: AgentEvent[] = [];
  for await (const event of events) {
    all.push(event);
    if (event.type === 'content') content += event.text;
    else if (event.type === 'progress') progress += event.text;
    else summary = event.summary;
  }
  if (!summary) throw new Error('the run ended without a summary');
  expect(auditCitations(content, summary.ledger)).toEqual([]);
  return { content, progress, summary, events: all };
}
