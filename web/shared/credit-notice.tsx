/** "Out of credit" in words, with the link to the Money page (see credit.ts for what counts as out of credit). */
import type { CreditProblem } from './credit';

/** "Your wallet has no credit left" with the link; `what` names what was refused ("This turn"). */
export function CreditNotice(props: { problem: CreditProblem; what?: string }) {
  return (
    <div class="notice error" role="alert" data-testid="credit-notice">
      {props.what ?? 'This call'} stopped: your wallet does not have enough credit.{' '}
      <a href={props.problem.url}>Add credit on the Money page</a>.
    </div>
  );
}
