import { describe, expect, it } from 'vitest';
import { boundedMessage, maxEchoedRun, maxMessageLength } from './error-message.js';

describe('boundedMessage', () => {
  it('keeps ordinary messages as they are', () => {
    const message = 'Invalid parameter id: Too big: expected string to have <=200 characters';
    expect(boundedMessage(message)).toBe(message);
    const exactly = `No route GET /${'a'.repeat(maxEchoedRun - 1)}`;
    expect(boundedMessage(exactly)).toBe(exactly);
  });

  it('cuts an echoed run of non-space characters to its first 200, keeping the words around it', () => {
    const url = `/api/projects/${'p'.repeat(70_000)}`;
    const message = boundedMessage(`Malformed request: '${url}' is not a valid url component`);
    expect(message).toBe(
      `Malformed request: '${url.slice(0, maxEchoedRun - 1)}… is not a valid url component`,
    );
    expect(message.length).toBeLessThan(300);
  });

  it('cuts an echoed text with spaces at the message limit', () => {
    const message = boundedMessage(`Unknown format "${'ab '.repeat(10_000)}"`);
    expect(message).toHaveLength(maxMessageLength + 1);
    expect(message.endsWith('…')).toBe(true);
  });

  it('never splits a surrogate pair', () => {
    const message = boundedMessage(`x${'😀'.repeat(300)}`);
    expect(message.endsWith('😀…')).toBe(true);
    expect(message).toBe(`x${'😀'.repeat(99)}…`);
  });
});
