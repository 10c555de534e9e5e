import {
  DeleteObjectCommand,
  GetObjectCommand,
  HeadBucketCommand,
  HeadObjectCommand,
  ListObjectsCommand,
  type ListObjectsCommandOutput,
  NoSuchKey,
  NotFound,
  PutObjectCommand,
  S3Client,
} from '@aws-sdk/client-s3';
import { AppError } from '../../domain/errors.js';
import { assertBlobKey, type BlobListing, type BlobStore } from '../../ports/blob-store.js';

export interface S3BlobStoreOptions {
  bucket: string;
  region: string;
  /** S3-compatible endpoint (MinIO, R2, …); unset for AWS. */
  endpoint?: string;
  accessKeyId?: string;
  secretAccessKey?: string;
  /** Key prefix inside the bucket (e.g. "alexandria/"). */
  prefix?: string;
  /** Keys per `list` request (S3 caps it at 1000, the default); small values exercise paging in tests. */
  listPageSize?: number;
  /** Told when a request fails because the store is out (it then fails with a 503), and when it answers again. */
  health?: { onOutage(error: unknown): void; onAnswered(): void };
}

/** Network failures and the store's own 5xx: the store is out, not the request wrong. */
function isStoreOutage(error: unknown): boolean {
  const status = (error as { $metadata?: { httpStatusCode?: number } }).$metadata?.httpStatusCode;
  if (typeof status === 'number') return status >= 500;
  const code = (error as { code?: unknown }).code;
  const name = (error as { name?: unknown }).name;
  return (
    (typeof code === 'string' &&
      /^(ECONNREFUSED|ECONNRESET|ETIMEDOUT|EPIPE|EHOSTUNREACH|ENOTFOUND|EAI_AGAIN)$/.test(code)) ||
    name === 'TimeoutError' ||
    name === 'RequestTimeout' ||
    error instanceof AggregateError
  );
}

const isMissing = (error: unknown) =>
  error instanceof NoSuchKey ||
  error instanceof NotFound ||
  (error as { $metadata?: { httpStatusCode?: number } }).$metadata?.httpStatusCode === 404;

/**
 * Blobs in an S3 bucket (scale-out). A PUT is atomic on S3: readers see the old object or the new
 * one. Path-style addressing and "when required" checksums keep S3-compatible stores working.
 */
export class S3BlobStore implements BlobStore {
  private readonly client: S3Client;

  constructor(private readonly options: S3BlobStoreOptions) {
    this.client = new S3Client({
      region: options.region,
      ...(options.endpoint ? { endpoint: options.endpoint, forcePathStyle: true } : {}),
      ...(options.accessKeyId && options.secretAccessKey
        ? { credentials: { accessKeyId: options.accessKeyId, secretAccessKey: options.secretAccessKey } }
        : {}),
      requestChecksumCalculation: 'WHEN_REQUIRED',
      responseChecksumValidation: 'WHEN_REQUIRED',
      // A store that is down fails the request in seconds (503), instead of after long retries.
      maxAttempts: 2,
      requestHandler: { connectionTimeout: 2_000, requestTimeout: 60_000 },
    });
  }

  /**
   * Sends one request. An outage of the store (refused, timed out, 5xx) fails it with a 503
   * (`unavailable`, Retry-After) for the request or job that needed it (docs/decisions/0046).
   */
  // biome-ignore lint/suspicious/noExplicitAny: forwards any S3 command
  private async send<T>(command: any): Promise<T> {
    try {
      const response = (await this.client.send(command)) as T;
      this.options.health?.onAnswered();
      return response;
    } catch (error) {
      if (!isStoreOutage(error)) throw error;
      this.options.health?.onOutage(error);
      throw new AppError('unavailable', 'The blob store is unavailable right now; retry shortly', {
        retryAfterSeconds: 10,
        cause: error,
      });
    }
  }

  private key(key: string): string {
    assertBlobKey(key);
    return `${this.options.prefix ?? ''}${key}`;
  }

  async put(key: string, data: Uint8Array, options: { contentType?: string } = {}): Promise<void> {
    await this.send(
      new PutObjectCommand({
        Bucket: this.options.bucket,
        Key: this.key(key),
        Body: data,
        ContentType: options.contentType ?? 'application/octet-stream',
      }),
    );
  }

  async get(key: string): Promise<Uint8Array | null> {
    try {
      const response = await this.send<{ Body?: { transformToByteArray(): Promise<Uint8Array> } }>(
        new GetObjectCommand({ Bucket: this.options.bucket, Key: this.key(key) }),
      );
      return response.Body ? await response.Body.transformToByteArray() : new Uint8Array();
    } catch (error) {
      if (isMissing(error)) return null;
      throw error;
    }
  }

  async has(key: string): Promise<boolean> {
    try {
      await this.send(new HeadObjectCommand({ Bucket: this.options.bucket, Key: this.key(key) }));
      return true;
    } catch (error) {
      if (isMissing(error)) return false;
      throw error;
    }
  }

  async delete(key: string): Promise<void> {
    await this.send(new DeleteObjectCommand({ Bucket: this.options.bucket, Key: this.key(key) }));
  }

  /**
   * Pages with the original ListObjects and a marker (the last key of the previous page): every
   * S3-compatible store has it, and so does the loopback server the tests run against, whose
   * ListObjectsV2 continuation tokens fail on Node 20 (they are DES-encrypted).
   */
  async *list(prefix: string): AsyncIterable<BlobListing> {
    const storePrefix = this.options.prefix ?? '';
    let marker: string | undefined;
    for (;;) {
      const page = await this.send<ListObjectsCommandOutput>(
        new ListObjectsCommand({
          Bucket: this.options.bucket,
          Prefix: `${this.key(prefix)}/`,
          MaxKeys: this.options.listPageSize ?? 1000,
          Marker: marker,
        }),
      );
      const objects = page.Contents ?? [];
      for (const object of objects) {
        if (!object.Key?.startsWith(storePrefix)) continue;
        // An object without a date counts as just written: an age-guarded sweep leaves it alone.
        const lastModified = object.LastModified ?? new Date();
        yield { key: object.Key.slice(storePrefix.length), lastModified, size: object.Size ?? 0 };
      }
      marker = page.NextMarker ?? objects.at(-1)?.Key;
      if (!page.IsTruncated || marker === undefined) return;
    }
  }

  async ping(): Promise<void> {
    await this.send(new HeadBucketCommand({ Bucket: this.options.bucket }));
  }

  close(): void {
    this.client.destroy();
  }
}
