import { z } from 'zod';
import { parseIpRange } from '../../platform/ip-address.js';
import { booleanText, envVar, listText, nonNegativeInt, positiveInt } from '../env-var.js';

/** Read by the same parser as the fetch policy, so what passes here is what the policy opens. */
const cidrList = listText.pipe(
  z.array(
    z.string().refine((text) => parseIpRange(text) !== null, {
      error: (issue) =>
        `"${String(issue.input)}" is not an IP address or a CIDR range such as 127.0.0.1/32 or fd00::/8`,
    }),
  ),
);

/** Fetching remote PDFs (SSRF guard and limits), uploads, stored documents and figure links. */
export const documentsSection = {
  embedOnAdd: envVar('ALEXANDRIA_EMBED_ON_ADD', booleanText, {
    default: 'true',
    description:
      "Embed a PDF's passages in the background as soon as add_to_project files it, so its first question is as fast as the next ones. Off: the first question embeds them.",
  }),
  questionDeadlineMs: envVar('ALEXANDRIA_QUESTION_DEADLINE_MS', positiveInt, {
    default: '5000',
    description:
      "Longest a question waits for the document's passage vectors (and its own), once the text is read, in ms. Past it the answer is ranked by words (BM25) and the hint says so, while the vectors go on being built for later questions.",
  }),
  questionFirstCandidates: envVar('ALEXANDRIA_QUESTION_FIRST_CANDIDATES', nonNegativeInt, {
    default: '32',
    description:
      "A question on a PDF whose passage vectors are not built yet embeds only BM25's best this many passages (and the question) and answers; the rest of the document is embedded in the background and stored, so the next question is warm. 0: wait for every passage's vector (up to the deadline).",
  }),
  fetchMaxMb: envVar('ALEXANDRIA_FETCH_MAX_MB', positiveInt, {
    default: '50',
    description: 'Largest PDF fetched from a URL, in MB (checked on content-length and while streaming).',
  }),
  fetchHeadersTimeoutMs: envVar('ALEXANDRIA_FETCH_HEADERS_TIMEOUT_MS', positiveInt, {
    default: '15000',
    description: 'Time to connect to a PDF url and receive its response headers, in ms.',
  }),
  fetchBodyTimeoutMs: envVar('ALEXANDRIA_FETCH_BODY_TIMEOUT_MS', positiveInt, {
    default: '30000',
    description: 'Longest pause while downloading a PDF body, in ms.',
  }),
  fetchTotalTimeoutMs: envVar('ALEXANDRIA_FETCH_TOTAL_TIMEOUT_MS', positiveInt, {
    default: '120000',
    description: 'Deadline for fetching one PDF url, redirects included, in ms.',
  }),
  fetchMaxRedirects: envVar('ALEXANDRIA_FETCH_MAX_REDIRECTS', z.coerce.number().int().min(0).max(20), {
    default: '5',
    description: 'Redirects followed when fetching a PDF url; each hop is checked again.',
  }),
  fetchAllowedPrivateRanges: envVar('ALEXANDRIA_FETCH_ALLOW_PRIVATE_RANGES', cidrList, {
    default: '',
    description:
      'Comma-separated IPs/CIDRs that PDF urls may reach although not public (e.g. an intranet repository; tests use 127.0.0.1/32). Empty: only public addresses. Cloud metadata addresses stay refused.',
  }),
  uploadMaxMb: envVar('ALEXANDRIA_UPLOAD_MAX_MB', positiveInt, {
    default: '50',
    description: 'Largest PDF accepted by add_to_project as a multipart upload, in MB.',
  }),
  figureUrlTtlSeconds: envVar('ALEXANDRIA_FIGURE_URL_TTL_SECONDS', positiveInt, {
    default: '86400',
    description:
      'How long a signed figure link in img_mds stays valid, in seconds: between one and two of these (links are rounded so rereading a chunk gives the same ones). Longer keeps images in old chats visible; shorter limits a leaked link. Reading the chunk again gives a fresh link.',
  }),
  urlCacheTtlSeconds: envVar('ALEXANDRIA_FULLTEXT_URL_CACHE_TTL_SECONDS', positiveInt, {
    default: '86400',
    description:
      'How long a fetched PDF url is remembered (url → content hash), so re-reading it skips the download, in seconds.',
  }),
};
