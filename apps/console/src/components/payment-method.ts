/** A payment's method as people read it: an e-money payment shows its brand, `EMONEY (transport_ic)`. */
export const methodLabel = (method: { type: string; brand?: string | null }) =>
  method.brand ? `${method.type} (${method.brand})` : method.type;
