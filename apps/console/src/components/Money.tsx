const yen = new Intl.NumberFormat("en-US", { style: "currency", currency: "JPY" });

/** An amount in minor units (JPY has none below the yen), as the person reads it. */
export const formatYen = (amount: number) => yen.format(amount);

/** An amount on screen; `data-value` keeps the API's integer beside what is shown. */
export function Money({ amount }: { amount: number }) {
  return <span data-value={amount}>{formatYen(amount)}</span>;
}
