// The local chat model's action protocol: prompt text, chat history, grammar schema, parsing an action.
import type { ChatHistoryItem } from 'node-llama-cpp';
import type { ChatModelMessage, ChatToolCall, ChatToolDefinition } from '../../ports/chat-model.js';

/** The protocol of a step with tools, appended to the system prompt (its text is stable across steps). */
function actionProtocol(tools: ChatToolDefinition[]): string {
  const lines = tools.map((tool) => {
    const properties = propertiesOf(tool.parameters);
    const required = new Set(requiredOf(tool.parameters));
    const args = Object.entries(properties).map(([name, schema]) => {
      const description = typeof schema.description === 'string' ? `: ${schema.description}` : '';
      return `    - ${name} (${typeLabel(schema)}${required.has(name) ? '' : ', or null'})${description}`;
    });
    return [`- "${tool.name}": ${tool.description}`, ...args].join('\n');
  });
  return `## Actions
You work in steps. At each step reply with exactly one JSON object that names an action and its arguments, like {"action": "<name>", "<argument>": <value>, …}. Arguments you do not need are null. The action's result comes back in the next message.
${lines.join('\n')}
- "answer": you have what you need, or more steps will not help; after it you write the answer in plain text.`;
}

/** The action that ends the steps, as the model writes it. */
const answerAction = '{"action": "answer"}';

/**
 * The instruction after an "answer" action: the text that follows is the answer. It repeats the
 * user's question: after a few steps a small model otherwise answers the last question it asked a
 * tool ("What is the purpose of the study?") instead (measured with Qwen2.5-1.5B on PubMedQA).
 */
export function writeAnswerNow(messages: ChatModelMessage[]): string {
  const question = [...messages]
    .reverse()
    .find((message) => message.role === 'user')
    ?.content.trim();
  const asked = question ? ` The user's question: "${question.slice(0, 1500)}"` : '';
  return `Now write your answer to the user's question in plain markdown text, not JSON, following any format it asks for: use only the results above, and cite them exactly as the instructions say.${asked}`;
}

/**
 * The conversation as llama.cpp's chat history: one system message first (with the action protocol
 * when the turn offers tools), tool results as user messages naming their tool, calls as the JSON
 * actions the model wrote; consecutive messages of one side joined. Ends with the model's empty turn.
 */
export function toHistory(
  messages: ChatModelMessage[],
  tools: ChatToolDefinition[] | undefined,
  options: { answerAfterCalls?: boolean } = {},
): ChatHistoryItem[] {
  const items: ChatHistoryItem[] = [];
  const system: string[] = [];
  const callNames = new Map<string, string>();
  const add = (type: 'user' | 'model', text: string) => {
    const last = items.at(-1);
    if (last?.type === 'user' && type === 'user') last.text = `${last.text}\n\n${text}`;
    else if (last?.type === 'model' && type === 'model') last.response.push(`\n\n${text}`);
    else items.push(type === 'user' ? { type, text } : { type, response: [text] });
  };
  // With `answerAfterCalls`, the model's answer action follows the last call's results.
  const lastCall = options.answerAfterCalls
    ? messages.findLastIndex(
        (message) => message.role === 'tool' || (message.role === 'assistant' && !!message.toolCalls?.length),
      )
    : -1;
  for (const [position, message] of messages.entries()) {
    switch (message.role) {
      case 'system':
        // Instructions before the conversation set it up; later ones (a budget note) are news.
        if (items.length === 0) system.push(message.content);
        else add('user', message.content);
        break;
      case 'user':
        add('user', message.content);
        break;
      case 'assistant':
        for (const call of message.toolCalls ?? []) callNames.set(call.id, call.name);
        if (message.toolCalls?.length) {
          for (const call of message.toolCalls) add('model', actionText(call));
        } else if (message.content) {
          add('model', message.content);
        }
        break;
      case 'tool':
        add('user', `Result of ${callNames.get(message.toolCallId) ?? 'the action'}:\n${message.content}`);
        break;
    }
    if (position === lastCall) add('model', answerAction);
  }
  // The protocol first: it is the same in every run, while the agent's instructions end with the
  // run's fence nonce, so a new run re-evaluates only the instructions (the sequence keeps the prefix).
  if (tools) system.unshift(actionProtocol(tools));
  const history: ChatHistoryItem[] = [];
  if (system.length > 0) history.push({ type: 'system', text: system.join('\n\n') });
  history.push(...items, { type: 'model', response: [] });
  return history;
}

/** A call as the JSON action the model writes for it (unparseable arguments are left out). */
function actionText(call: ChatToolCall): string {
  let args: Record<string, unknown> = {};
  try {
    const parsed = JSON.parse(call.arguments) as unknown;
    if (parsed && typeof parsed === 'object' && !Array.isArray(parsed))
      args = parsed as Record<string, unknown>;
  } catch {}
  return JSON.stringify({ action: call.name, ...args });
}

type Schema = Record<string, unknown>;

/**
 * The grammar's schema: one object per tool (`action` fixed to its name, its arguments; the optional
 * ones may be null, as the grammar makes every listed key appear), or `{"action": "answer"}`.
 */
export function actionSchema(tools: ChatToolDefinition[]): Schema {
  return {
    oneOf: [
      ...tools.map((tool) => {
        const required = new Set(requiredOf(tool.parameters));
        const properties: Record<string, Schema> = { action: { const: tool.name } };
        for (const [name, schema] of Object.entries(propertiesOf(tool.parameters))) {
          const value = grammarSchema(schema);
          properties[name] = required.has(name) ? value : { oneOf: [value, { type: 'null' }] };
        }
        return { type: 'object', properties, additionalProperties: false };
      }),
      { type: 'object', properties: { action: { const: 'answer' } }, additionalProperties: false },
    ],
  };
}

/** A JSON Schema reduced to what the grammar supports (bounds it cannot express are dropped). */
function grammarSchema(schema: Schema): Schema {
  if (Array.isArray(schema.enum)) return { enum: schema.enum };
  if ('const' in schema) return { const: schema.const };
  const variants = (schema.anyOf ?? schema.oneOf) as Schema[] | undefined;
  if (Array.isArray(variants)) return { oneOf: variants.map(grammarSchema) };
  switch (schema.type) {
    case 'string': {
      const result: Schema = { type: 'string' };
      // Arguments are keywords, ids and questions: 300 characters at most keeps a small model that
      // repeats itself from spending the step's tokens on one string.
      result.maxLength = Math.min(typeof schema.maxLength === 'number' ? schema.maxLength : 300, 300);
      if (typeof schema.minLength === 'number' && schema.minLength <= 10) result.minLength = schema.minLength;
      return result;
    }
    case 'integer':
    case 'number':
    case 'boolean':
    case 'null':
      return { type: schema.type };
    case 'array':
      return {
        type: 'array',
        ...(schema.items && typeof schema.items === 'object'
          ? { items: grammarSchema(schema.items as Schema) }
          : {}),
      };
    case 'object': {
      const required = new Set(requiredOf(schema));
      const properties: Record<string, Schema> = {};
      for (const [name, value] of Object.entries(propertiesOf(schema))) {
        const reduced = grammarSchema(value);
        properties[name] = required.has(name) ? reduced : { oneOf: [reduced, { type: 'null' }] };
      }
      return { type: 'object', properties, additionalProperties: false };
    }
    default:
      // No type: any JSON scalar is the closest the grammar can say.
      return { type: ['string', 'number', 'boolean', 'null'] };
  }
}

function propertiesOf(schema: Schema): Record<string, Schema> {
  const properties = schema.properties;
  return properties && typeof properties === 'object' ? (properties as Record<string, Schema>) : {};
}

function requiredOf(schema: Schema): string[] {
  return Array.isArray(schema.required) ? (schema.required as string[]) : [];
}

function typeLabel(schema: Schema): string {
  if (Array.isArray(schema.enum))
    return `one of ${schema.enum.map((value) => JSON.stringify(value)).join(', ')}`;
  const variants = (schema.anyOf ?? schema.oneOf) as Schema[] | undefined;
  if (Array.isArray(variants)) return variants.map(typeLabel).join(' or ');
  return typeof schema.type === 'string' ? schema.type : 'value';
}

/**
 * The action the model wrote: a tool call (null arguments dropped, as they mean "not given"), or
 * "answer"; undefined when the JSON is incomplete or names no offered tool.
 */
export function parseAction(
  text: string,
  tools: ChatToolDefinition[],
): { kind: 'answer' } | { kind: 'call'; call: ChatToolCall } | undefined {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    return undefined;
  }
  if (!parsed || typeof parsed !== 'object' || Array.isArray(parsed)) return undefined;
  const { action, ...rest } = parsed as Record<string, unknown>;
  if (action === 'answer') return { kind: 'answer' };
  if (typeof action !== 'string' || !tools.some((tool) => tool.name === action)) return undefined;
  const args = Object.fromEntries(Object.entries(rest).filter(([, value]) => value !== null));
  return {
    kind: 'call',
    call: { id: `call_${crypto.randomUUID().slice(0, 8)}`, name: action, arguments: JSON.stringify(args) },
  };
}
