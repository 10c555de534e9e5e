/**
 * Stand-in for the `paths` type openapi-typescript generates from the served /openapi.json. The
 * generated-client test copies operations.ts next to the real generated types and typechecks it
 * there; in the repository the client is untyped, since the document exists only at test time.
 */
// biome-ignore lint/suspicious/noExplicitAny: replaced by the generated types when typechecked
export type paths = any;
