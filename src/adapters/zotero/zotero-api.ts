import { z } from 'zod';

/**
 * The wire form of Zotero's answer to a write (POST /users/<id>/items): per submitted item, by its
 * index as a string key, either `successful` (with the new key) or `failed` (with a code and
 * message). Only what we read is declared.
 */
export const zoteroWriteResponseSchema = z.object({
  successful: z
    .record(z.string(), z.object({ key: z.string(), version: z.number().nullish() }).loose())
    .nullish(),
  success: z.record(z.string(), z.string()).nullish(),
  unchanged: z.record(z.string(), z.string()).nullish(),
  failed: z
    .record(
      z.string(),
      z.object({ key: z.string().nullish(), code: z.number().nullish(), message: z.string().nullish() }),
    )
    .nullish(),
});
