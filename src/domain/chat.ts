import { z } from 'zod';

/**
 * A chat message of a completion request (spec 2.3). The spec says the role "must be user"; OpenAI
 * clients also send `system` and `assistant` turns as context, so those are accepted too, and
 * `developer` (what newer OpenAI clients send instead of `system`) is read as `system`.
 */
export const chatRoles = ['user', 'system', 'assistant'] as const;
export type ChatRole = (typeof chatRoles)[number];

/** A message as the agent reads it: one of our roles and plain text. */
export interface ChatMessage {
  role: ChatRole;
  content: string;
}

/** Roles a client may send; `developer` becomes `system`. */
const wireRoles = ['user', 'system', 'developer', 'assistant'] as const;

const textPartSchema = z
  .object({ type: z.literal('text'), text: z.string() })
  .meta({ id: 'ChatTextPart', description: 'A piece of the message text.' });

/** Any other part (`image_url`, `input_audio`, `file`…): accepted by the schema, refused below by name. */
const otherPartSchema = z
  .object({ type: z.string().max(100) })
  .loose()
  .describe('Other content parts (images, audio, files) are refused: the agent reads text only.');

/**
 * How OpenAI clients send a message: `content` as a string, or (LibreChat, vision-capable clients)
 * as an array of parts whose text parts are joined with a newline. A part that is not text is a 400
 * naming it (`messages[0].content[1]`), never silently dropped: the question may be in the image.
 * The parsed value is a `ChatMessage`.
 */
export const chatMessageSchema = z
  .object({
    role: z.enum(wireRoles, { error: 'role must be one of user, system, developer, assistant' }),
    content: z.union(
      [
        z.string(),
        z.null().describe('Read as empty (assistant turns that only called tools).'),
        z.array(z.union([textPartSchema, otherPartSchema])).max(100, 'content must hold at most 100 parts'),
      ],
      { error: 'content must be a string or an array of text parts' },
    ),
  })
  .superRefine((message, context) => {
    if (!Array.isArray(message.content)) return;
    for (const [index, part] of message.content.entries()) {
      if (part.type === 'text') {
        if (typeof (part as { text?: unknown }).text !== 'string') {
          context.addIssue({
            code: 'custom',
            path: ['content', index, 'text'],
            message: 'text must be a string',
          });
        }
        continue;
      }
      context.addIssue({ code: 'custom', path: ['content', index], message: unsupportedPart(part.type) });
    }
  })
  .transform(
    (message): ChatMessage => ({
      role: message.role === 'developer' ? 'system' : message.role,
      content: textOf(message.content),
    }),
  )
  .meta({ id: 'ChatMessage' });

function unsupportedPart(type: string): string {
  const kind = type.replace(/[^\w.-]/g, '').slice(0, 40) || 'this';
  return `${kind} parts are not supported: the research agent reads text only (send the question as text parts or a string)`;
}

function textOf(content: string | null | Array<{ type: string; text?: unknown }>): string {
  if (content === null) return '';
  if (typeof content === 'string') return content;
  return content
    .map((part) => (typeof part.text === 'string' ? part.text : ''))
    .filter((text) => text.length > 0)
    .join('\n');
}
