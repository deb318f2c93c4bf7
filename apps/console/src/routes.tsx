import { createBrowserRouter, Navigate } from "react-router";
import { Layout } from "./components/Layout";
import { RouteError } from "./components/RouteError";
import type { Identity } from "./session/session";

/**
 * One entry per page: its path, and where it shows in the navigation (label) to the tiers it serves (`shownTo`).
 * Pages load on first visit, so the first load carries only the shell and the login.
 */
export const pages = [
  {
    path: "tree",
    label: "Tenant tree",
    shownTo: (identity: Identity) => identity.tier <= 4,
    lazy: async () => ({ Component: (await import("./pages/tree/TreePage")).TreePage }),
  },
  {
    path: "day",
    label: "Store's day",
    shownTo: (identity: Identity) => identity.tier <= 4,
    lazy: async () => ({ Component: (await import("./pages/day/DayPage")).DayPage }),
  },
  {
    path: "payments",
    label: "Payments",
    shownTo: () => true,
    lazy: async () => ({ Component: (await import("./pages/payments/PaymentsPage")).PaymentsPage }),
  },
  {
    path: "payments/:id",
    shownTo: () => false,
    lazy: async () => ({ Component: (await import("./pages/payments/PaymentPage")).PaymentPage }),
  },
  {
    path: "customers",
    label: "Customers",
    shownTo: (identity: Identity) => identity.tier <= 4,
    lazy: async () => ({ Component: (await import("./pages/customers/CustomersPage")).CustomersPage }),
  },
  {
    path: "webhooks",
    label: "Partner webhooks",
    shownTo: (identity: Identity) => identity.tier <= 1,
    lazy: async () => ({ Component: (await import("./pages/webhooks/WebhooksPage")).WebhooksPage }),
  },
  {
    path: "audit",
    label: "Audit trail",
    shownTo: (identity: Identity) => identity.tier <= 4,
    lazy: async () => ({ Component: (await import("./pages/audit/AuditPage")).AuditPage }),
  },
];

export const router = createBrowserRouter(
  [
    {
      path: "login",
      lazy: async () => ({ Component: (await import("./pages/login/LoginPage")).LoginPage }),
    },
    {
      element: <Layout />,
      errorElement: <RouteError />,
      children: [
        { index: true, element: <Navigate to="/tree" replace /> },
        ...pages.map(({ path, lazy }) => ({ path, lazy, errorElement: <RouteError /> })),
        { path: "*", lazy: async () => ({ Component: (await import("./pages/not-found/NotFoundPage")).NotFoundPage }) },
      ],
    },
  ],
  { basename: "/console" },
);
