import { logger } from "./logger";

/** Why a workflow is being undone: the step that failed and what it threw. */
export interface WorkflowFailure {
  step: string;
  error: unknown;
}

/**
 * One named step of a workflow (Medusa's `createStep`): what it does, and, when it changes something a later
 * failure must not leave behind (another service's record, a call to an outside party), how to undo that.
 */
export interface Step<Input, Output> {
  readonly id: string;
  invoke(input: Input): Promise<Output>;
  compensate?(output: Output, input: Input, failure: WorkflowFailure): Promise<unknown>;
}

export const createStep = <Input, Output>(
  id: string,
  invoke: (input: Input) => Promise<Output>,
  compensate?: (output: Output, input: Input, failure: WorkflowFailure) => Promise<unknown>,
): Step<Input, Output> => ({ id, invoke, compensate });

/** Runs one step inside a workflow, so that its compensation is known should a later step fail. */
export type RunStep = <Input, Output>(step: Step<Input, Output>, input: Input) => Promise<Output>;

/**
 * A workflow: steps run in the order the body calls them. When one throws, the steps already done are compensated,
 * last first, and the error is thrown on; a compensation that fails is logged and the others still run. A step that
 * throws undoes its own partial work itself: it is not compensated.
 */
export function createWorkflow<Input, Output>(
  id: string,
  body: (input: Input, run: RunStep) => Promise<Output>,
): (input: Input) => Promise<Output> {
  return async (input) => {
    const done: { step: string; undo: (failure: WorkflowFailure) => Promise<unknown> }[] = [];
    let current = "";
    const run: RunStep = async (step, stepInput) => {
      current = step.id;
      const output = await step.invoke(stepInput);
      const { compensate } = step;
      if (compensate) done.push({ step: step.id, undo: (failure) => compensate(output, stepInput, failure) });
      return output;
    };
    try {
      return await body(input, run);
    } catch (error) {
      const failure = { step: current, error };
      for (const { step, undo } of done.reverse())
        await undo(failure).catch((undoError: unknown) =>
          logger.error("a workflow step could not be compensated", {
            workflow: id,
            step,
            failed_step: failure.step,
            error: String(undoError),
          }),
        );
      throw error;
    }
  };
}
