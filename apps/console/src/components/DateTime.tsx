/** A moment from the API (ISO 8601, UTC) in the reader's local time. */
export function DateTime({ value }: { value?: string | null }) {
  if (!value) return null;
  return <time dateTime={value}>{new Date(value).toLocaleString()}</time>;
}
