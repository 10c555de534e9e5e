import type { Pixels } from './png.js';

/** Bytes per source pixel and, per output channel, its byte offset in the source pixel. */
export interface PixelLayout {
  step: number;
  offsets: number[];
}

/**
 * Source pixels (`stride` bytes a row, `layout.step` bytes a pixel) as packed 8-bit gray, RGB or
 * RGBA, box-filtered by a whole factor down to at most `maxSide` pixels a side: each output value
 * is the rounded mean of a factor × factor square. One pass over the source; the loops are written
 * out per channel count with the offsets in locals, so V8 compiles each to a tight loop (a shared
 * per-pixel closure ran at 5–10 ns per source byte; decision 0068).
 */
export function boxFilter(
  input: Uint8Array,
  sourceWidth: number,
  sourceHeight: number,
  stride: number,
  layout: PixelLayout,
  maxSide: number,
): Pixels {
  const factor = Math.max(1, Math.ceil(Math.max(sourceWidth, sourceHeight) / maxSide));
  const width = Math.floor(sourceWidth / factor);
  const height = Math.floor(sourceHeight / factor);
  const channels = layout.offsets.length;
  const data = new Uint8Array(width * height * channels);
  if (width === 0 || height === 0) return { width, height, channels, data };
  if (factor === 1) copyPixels(input, stride, layout, width, height, data);
  else if (channels === 1) shrinkGray(input, stride, layout, factor, width, height, data);
  else shrinkColour(input, stride, layout, factor, width, height, data);
  return { width, height, channels, data };
}

/** Factor 1: the pixels reordered (BGR to RGB) or, when the layout is already packed, rows copied. */
function copyPixels(
  input: Uint8Array,
  stride: number,
  { step, offsets }: PixelLayout,
  width: number,
  height: number,
  data: Uint8Array,
): void {
  const channels = offsets.length;
  const rowLength = width * channels;
  if (step === channels && offsets.every((offset, index) => offset === index)) {
    for (let y = 0; y < height; y++) {
      data.set(input.subarray(y * stride, y * stride + rowLength), y * rowLength);
    }
    return;
  }
  const o0 = offsets[0] as number;
  const o1 = offsets[1] ?? 0;
  const o2 = offsets[2] ?? 0;
  const o3 = offsets[3] ?? 0;
  let out = 0;
  if (channels === 3) {
    for (let y = 0; y < height; y++) {
      const end = y * stride + width * step;
      for (let at = y * stride; at < end; at += step) {
        data[out] = input[at + o0] as number;
        data[out + 1] = input[at + o1] as number;
        data[out + 2] = input[at + o2] as number;
        out += 3;
      }
    }
  } else if (channels === 4) {
    for (let y = 0; y < height; y++) {
      const end = y * stride + width * step;
      for (let at = y * stride; at < end; at += step) {
        data[out] = input[at + o0] as number;
        data[out + 1] = input[at + o1] as number;
        data[out + 2] = input[at + o2] as number;
        data[out + 3] = input[at + o3] as number;
        out += 4;
      }
    }
  } else {
    for (let y = 0; y < height; y++) {
      const end = y * stride + width * step;
      for (let at = y * stride; at < end; at += step) data[out++] = input[at + o0] as number;
    }
  }
}

/** One channel: sums per output value over its square, then the rounded mean. */
function shrinkGray(
  input: Uint8Array,
  stride: number,
  { step, offsets }: PixelLayout,
  factor: number,
  width: number,
  height: number,
  data: Uint8Array,
): void {
  const o0 = offsets[0] as number;
  const sums = new Uint32Array(width);
  const area = factor * factor;
  const half = area >> 1;
  const pixelStep = factor * step;
  for (let y = 0; y < height; y++) {
    sums.fill(0);
    for (let dy = 0; dy < factor; dy++) {
      let at = (y * factor + dy) * stride + o0;
      for (let x = 0; x < width; x++) {
        let sum = 0;
        for (let offset = at, end = at + pixelStep; offset < end; offset += step)
          sum += input[offset] as number;
        sums[x] = (sums[x] as number) + sum;
        at += pixelStep;
      }
    }
    const row = y * width;
    for (let x = 0; x < width; x++) data[row + x] = ((sums[x] as number) + half) / area;
  }
}

/** Three or four channels, each taken from its offset in the source pixel. */
function shrinkColour(
  input: Uint8Array,
  stride: number,
  { step, offsets }: PixelLayout,
  factor: number,
  width: number,
  height: number,
  data: Uint8Array,
): void {
  const channels = offsets.length;
  const o0 = offsets[0] as number;
  const o1 = offsets[1] as number;
  const o2 = offsets[2] as number;
  const o3 = offsets[3] ?? 0;
  const alpha = channels === 4;
  const rowLength = width * channels;
  const sums = new Uint32Array(rowLength);
  const area = factor * factor;
  const half = area >> 1;
  const pixelStep = factor * step;
  for (let y = 0; y < height; y++) {
    sums.fill(0);
    for (let dy = 0; dy < factor; dy++) {
      let at = (y * factor + dy) * stride;
      for (let target = 0; target < rowLength; target += channels) {
        let r = 0;
        let g = 0;
        let b = 0;
        let a = 0;
        const end = at + pixelStep;
        if (alpha) {
          for (let offset = at; offset < end; offset += step) {
            r += input[offset + o0] as number;
            g += input[offset + o1] as number;
            b += input[offset + o2] as number;
            a += input[offset + o3] as number;
          }
          sums[target + 3] = (sums[target + 3] as number) + a;
        } else {
          for (let offset = at; offset < end; offset += step) {
            r += input[offset + o0] as number;
            g += input[offset + o1] as number;
            b += input[offset + o2] as number;
          }
        }
        sums[target] = (sums[target] as number) + r;
        sums[target + 1] = (sums[target + 1] as number) + g;
        sums[target + 2] = (sums[target + 2] as number) + b;
        at = end;
      }
    }
    const row = y * rowLength;
    for (let index = 0; index < rowLength; index++)
      data[row + index] = ((sums[index] as number) + half) / area;
  }
}
