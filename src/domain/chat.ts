import { z } from 'zod';

/**
 * A chat message of a completion request (spec 2.3). The spec says the role "must be user"; OpenAI
 * clients also send `system` and `assistant` turns as context, so those are accepted too.
 */
export const chatRoles = ['user', 'system', 'assistant'] as const;

export const chatMessageSchema = z
  .object({
    role: z.enum(chatRoles, { error: 'role must be one of user, system, assistant' }),
    content: z.string({ error: 'content must be a string' }),
  })
  .meta({ id: 'ChatMessage' });

export type ChatMessage = z.infer<typeof chatMessageSchema>;
