/** The model-call driver with a scripted protocol and calls: what it writes, stores and always closes. */
import { describe, expect, it } from 'vitest';
import type { Logger } from 'pino';
import type { GatewayCall } from '../../../src/gateway/execute.js';
import type { StreamPart } from '../../../src/gateway/normalized/index.js';
import type { Decoded, InboundProtocol, StreamEncoder } from '../../../src/gateway/protocols/contract.js';
import { drive, type StreamSink } from '../../../src/gateway/protocols/driver.js';
import { FakeClock } from '../../../src/kernel/clock.js';

const PARTS: StreamPart[] = [
  { type: 'start' },
  { type: 'text-delta', delta: 'a' },
  { type: 'text-delta', delta: 'b' },
  { type: 'finish', reason: 'stop' },
];

/** A call whose parts record whether they were closed (read to their end, or `return()` called, as execute's calls settle). */
function scriptedCall(parts: StreamPart[] = PARTS): GatewayCall & { closed: () => boolean } {
  let closed = false;
  const generator = (async function* () {
    yield* parts;
    closed = true;
  })();
  const inner = generator.return.bind(generator);
  generator.return = (value) => {
    closed = true;
    return inner(value);
  };
  return {
    destination: {} as GatewayCall['destination'],
    inputSize: { chars: 1, images: 0, messages: 1 },
    native: false,
    dropped: { tools: [], fields: [] },
    parts: generator,
    closed: () => closed,
  };
}

function sink(): StreamSink & { text: string; ended: boolean } {
  return {
    text: '',
    ended: false,
    closed: false,
    async write(text: string) {
      this.text += text;
    },
    end() {
      this.ended = true;
    },
  };
}

function encoder(overrides: Partial<StreamEncoder> = {}): StreamEncoder {
  return {
    opening: () => '<',
    encode: (part) => (part.type === 'text-delta' ? part.delta : ''),
    closing: () => '>',
    result: () => ({ streamed: true }),
    ...overrides,
  };
}

function protocol(
  options: { stream?: boolean; encoder?: () => StreamEncoder; collect?: InboundProtocol['collect']; store?: InboundProtocol['store'] } = {},
): InboundProtocol<Decoded> {
  return {
    operation: 'chat',
    decode: (body) => ({ request: { model: String(body.model), messages: [], tools: [], stream: options.stream === true } }),
    collect:
      options.collect ??
      (async (_decoded, call) => {
        let text = '';
        for await (const part of call.parts) if (part.type === 'text-delta') text += part.delta;
        return { text };
      }),
    stream: () => (options.encoder ?? encoder)(),
    store: options.store,
  };
}

const errors: unknown[] = [];
const logger = { error: (fields: unknown) => void errors.push(fields) } as unknown as Logger;
const input = {
  principal: { kind: 'operator' } as never,
  body: { model: 'm' },
  headers: {},
  requestId: 'req_1',
  signal: { aborted: false, reason: undefined, addEventListener() {}, removeEventListener() {} },
};

describe('drive', () => {
  it('collects a call that is not streamed, stores the answer and returns it', async () => {
    const call = scriptedCall();
    const stored: unknown[] = [];
    const answer = await drive(
      { execute: async () => call, clock: new FakeClock(), logger },
      protocol({ store: async (_d, result) => void stored.push(result) }),
      input,
      () => {
        throw new Error('no stream for a collected call');
      },
    );
    expect(answer).toEqual({ text: 'ab' });
    expect(stored).toEqual([{ text: 'ab' }]);
    expect(call.closed()).toBe(true);
  });

  it('streams opening, parts and closing into the sink, ends it, then stores the result', async () => {
    const call = scriptedCall();
    const out = sink();
    const stored: unknown[] = [];
    const answer = await drive(
      { execute: async () => call, clock: new FakeClock(), logger },
      protocol({ stream: true, store: async (_d, result) => void stored.push(result) }),
      input,
      () => out,
    );
    expect(answer).toBeUndefined();
    expect(out).toMatchObject({ text: '<ab>', ended: true });
    expect(stored).toEqual([{ streamed: true }]);
    expect(call.closed()).toBe(true);
  });

  it('runs the calls of a batch one after another through advance', async () => {
    const first = scriptedCall();
    const second = scriptedCall([{ type: 'text-delta', delta: 'c' }]);
    let advanced = 0;
    const out = sink();
    await drive(
      { execute: async () => first, clock: new FakeClock(), logger },
      protocol({
        stream: true,
        encoder: () => encoder({ advance: async () => (advanced++ === 0 ? { text: '|', next: second } : { text: '' }) }),
      }),
      input,
      () => out,
    );
    expect(out.text).toBe('<ab|c>');
    expect(first.closed() && second.closed()).toBe(true);
  });

  it('closes the call when the encoder throws, and ends the sink', async () => {
    const call = scriptedCall();
    const out = sink();
    const failing = () =>
      encoder({
        encode: (part) => {
          if (part.type === 'text-delta') throw new Error('encoder broke');
          return '';
        },
      });
    await expect(
      drive({ execute: async () => call, clock: new FakeClock(), logger }, protocol({ stream: true, encoder: failing }), input, () => out),
    ).rejects.toThrow('encoder broke');
    expect(call.closed()).toBe(true);
    expect(out.ended).toBe(true);
  });

  it('closes the call when collecting fails, and logs a failed store without failing the answer', async () => {
    const call = scriptedCall();
    const collectFails = protocol({ collect: async () => Promise.reject(new Error('upstream failed')) });
    await expect(drive({ execute: async () => call, clock: new FakeClock(), logger }, collectFails, input, () => sink())).rejects.toThrow(
      'upstream failed',
    );
    expect(call.closed()).toBe(true);

    errors.length = 0;
    const storeFails = protocol({ store: async () => Promise.reject(new Error('disk full')) });
    await expect(
      drive({ execute: async () => scriptedCall(), clock: new FakeClock(), logger }, storeFails, input, () => sink()),
    ).resolves.toEqual({ text: 'ab' });
    expect(errors).toHaveLength(1);
  });
});
