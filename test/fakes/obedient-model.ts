import type { FakeScript, FakeTurn, RecordedChatRequest } from './fake-openai-server.js';

/**
 * A script for the fake OpenAI server that plays a model which obeys whatever it reads: the user's
 * request, and also every instruction written in a tool result (paper text) or an earlier assistant
 * turn. Each step it makes every call it has not made yet (at most four), and answers when none is
 * left or tools are withheld:
 *
 * - the user's own urls: `add_to_project` when the user's message says add or save, else `ask_pdf`;
 * - `search_my_library` and `search_papers` with the user's words, then `ask_pdf` on every `pdf_id`
 *   a result shows;
 * - injected: "call add_to_project with pdf_url=<url>", "read PDF_URL:<url>" and "read PROJ:<ref>",
 *   with `WHAT_YOU_READ` in a url replaced by the secret it read so far (the text after
 *   "cohort code:" in any result; "nothing" before it has read one).
 */
export function obedientModel(): FakeScript {
  return (request: RecordedChatRequest): FakeTurn => {
    if (!request.tools || request.tools.length === 0) return { text: 'Here is what the papers say.' };
    const offered = new Set(request.tools.map((tool) => tool.function.name));
    const made = new Set(
      request.messages
        .flatMap((message) => message.tool_calls ?? [])
        .map((call) => callKey(call.function.name, JSON.parse(call.function.arguments))),
    );
    const user = [...request.messages].reverse().find((message) => message.role === 'user')?.content ?? '';
    const results = request.messages
      .filter((message) => message.role === 'tool')
      .map((message) => message.content ?? '')
      .join('\n');
    const earlierAnswers = request.messages
      .filter((message) => message.role === 'assistant')
      .map((message) => message.content ?? '')
      .join('\n');
    const wanted: Array<{ name: string; arguments: Record<string, unknown> }> = [];
    const asksToAdd = /\b(add|save)\b/i.test(user);
    for (const [url] of user.matchAll(/https?:\/\/[^\s)]+/g)) {
      wanted.push(
        asksToAdd
          ? { name: 'add_to_project', arguments: { pdf_url: url } }
          : { name: 'ask_pdf', arguments: { pdf_id: `PDF_URL:${url}`, question: user } },
      );
    }
    wanted.push({ name: 'search_my_library', arguments: { query: user } });
    wanted.push({ name: 'search_papers', arguments: { keywords: 'zebrafish fin regeneration' } });
    for (const [, pdfId] of results.matchAll(/pdf_id: (\S+)/g)) {
      wanted.push({ name: 'ask_pdf', arguments: { pdf_id: pdfId, question: user } });
    }
    const secret = /cohort code: (\S+)/i.exec(results)?.[1] ?? 'nothing';
    const instructions = `${results}\n${earlierAnswers}`;
    for (const [, url] of instructions.matchAll(/call add_to_project with pdf_url=(\S+)/g)) {
      wanted.push({ name: 'add_to_project', arguments: { pdf_url: url } });
    }
    for (const [, ref] of instructions.matchAll(/read ((?:PDF_URL|PROJ):\S+)/g)) {
      const pdfId = (ref as string).replace('WHAT_YOU_READ', encodeURIComponent(secret));
      wanted.push({ name: 'ask_pdf', arguments: { pdf_id: pdfId, question: 'What does it say?' } });
    }
    const next = wanted
      .filter((call) => offered.has(call.name) && !made.has(callKey(call.name, call.arguments)))
      .filter(
        (call, index, all) =>
          all.findIndex(
            (other) => callKey(other.name, other.arguments) === callKey(call.name, call.arguments),
          ) === index,
      )
      .slice(0, 4);
    return next.length > 0 ? { toolCalls: next } : { text: 'Here is what the papers say.' };
  };
}

function callKey(name: string, args: Record<string, unknown>): string {
  return `${name} ${JSON.stringify(Object.fromEntries(Object.entries(args).sort(([a], [b]) => a.localeCompare(b))))}`;
}
