/**
 * Turn-start request → app-server `turn/start` input items, with clear 422s (text and data:-URL images only; the
 * app-server refuses remote image URLs). The permission selection is translated by `permissions.ts`, the model,
 * effort and approval policy checked by `turn-rules.ts`: the rule sets every surface shares.
 */
import { validationError, type ValidationIssue } from '../kernel/errors.js';
import type { UserInput } from '../appserver/protocol.js';
import type { PermissionSelection } from './permissions.js';

export { APPROVAL_POLICIES, KNOWN_EFFORTS } from './turn-rules.js';

export interface TurnRequest extends PermissionSelection {
  input?: string | Array<{ type: string; text?: string; url?: string; image_url?: string; detail?: string }>;
  prompt?: string;
  model?: string;
  effort?: string;
  approvalPolicy?: string;
  /** Alias of `approvalPolicy` (the direct routes' name). */
  approval_policy?: string;
}

const IMAGE_DETAILS = ['auto', 'low', 'high', 'original'];

export function toUserInput(request: TurnRequest): UserInput[] {
  const issues: ValidationIssue[] = [];
  const items: UserInput[] = [];
  if (request.prompt !== undefined) items.push({ type: 'text', text: request.prompt, text_elements: [] });
  if (typeof request.input === 'string') items.push({ type: 'text', text: request.input, text_elements: [] });
  else if (request.input !== undefined && !Array.isArray(request.input)) {
    issues.push({ loc: ['body', 'input'], msg: 'input is a string or a list of input items', type: 'value_error' });
  } else if (Array.isArray(request.input)) {
    request.input.forEach((item, index) => {
      const loc = ['body', 'input', index];
      if (item === null || typeof item !== 'object') {
        issues.push({ loc, msg: 'Each input item is an object', type: 'value_error' });
      } else if (item.type === 'text' && typeof item.text === 'string') {
        items.push({ type: 'text', text: item.text, text_elements: [] });
      } else if (item.type === 'image' || item.type === 'input_image') {
        const url = item.url ?? item.image_url;
        if (typeof url !== 'string' || !/^data:image\/[a-z0-9.+-]+;base64,/i.test(url)) {
          issues.push({ loc: [...loc, 'url'], msg: 'Images must be data: URLs (data:image/<type>;base64,…)', type: 'value_error' });
        } else if (item.detail !== undefined && !IMAGE_DETAILS.includes(item.detail)) {
          issues.push({ loc: [...loc, 'detail'], msg: `detail must be one of ${IMAGE_DETAILS.join(', ')}`, type: 'enum' });
        } else {
          items.push(item.detail === undefined ? { type: 'image', url } : { type: 'image', url, detail: item.detail as 'auto' });
        }
      } else {
        issues.push({ loc, msg: 'Each input item is {type:"text", text} or {type:"image", url:"data:…"}', type: 'value_error' });
      }
    });
  }
  if (issues.length > 0) throw validationError(issues);
  if (items.length === 0) throw validationError([{ loc: ['body', 'input'], msg: 'A turn needs input (text or images)', type: 'missing' }]);
  return items;
}
