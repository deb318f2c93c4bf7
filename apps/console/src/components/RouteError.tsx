import { useRouteError } from "react-router";
import { ErrorAlert } from "./ErrorAlert";

/** A page that failed to load or render says so inside the shell instead of leaving it blank. */
export function RouteError() {
  return <ErrorAlert error={useRouteError()} />;
}
