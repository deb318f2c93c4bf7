import type { ComponentType } from "react";
import { createBrowserRouter, Navigate } from "react-router";
import { Layout, type NavigationEntry } from "./components/Layout";
import { RouteError } from "./components/RouteError";
import { may } from "./session/permissions";
import type { Identity } from "./session/session";
import { useSession } from "./session/useSession";

/** Pages reached from another (a store) have no `label`, so they stay out of the navigation. */
interface Page extends NavigationEntry {
  lazy: () => Promise<{ Component: ComponentType }>;
}

/**
 * One entry per page: its path, and where it shows in the navigation (label) to the tiers it serves (`shownTo`).
 * Pages load on first visit, so the first load carries only the shell and the login.
 */
export const pages: Page[] = [
  {
    path: "overview",
    label: "Overview",
    shownTo: (identity: Identity) => identity.tier <= 4,
    lazy: async () => ({ Component: (await import("./pages/overview/OverviewPage")).OverviewPage }),
  },
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
    path: "messages",
    label: "Messages",
    shownTo: (identity: Identity) => identity.role === "SYSTEM_OP",
    lazy: async () => ({ Component: (await import("./pages/messages/MessagesPage")).MessagesPage }),
  },
  {
    path: "partners",
    label: "Client partner",
    shownTo: (identity: Identity) => identity.tier <= 2,
    lazy: async () => ({ Component: (await import("./pages/partners/PartnersPage")).PartnersPage }),
  },
  {
    path: "audit",
    label: "Audit trail",
    shownTo: (identity: Identity) => identity.tier <= 4,
    lazy: async () => ({ Component: (await import("./pages/audit/AuditPage")).AuditPage }),
  },
  {
    path: "users",
    label: "Users",
    shownTo: may.manageUsers,
    lazy: async () => ({ Component: (await import("./pages/users/UsersPage")).UsersPage }),
  },
  {
    path: "app-updates",
    label: "App updates",
    shownTo: may.manageAppVersions,
    lazy: async () => ({ Component: (await import("./pages/app-updates/AppUpdatesPage")).AppUpdatesPage }),
  },
  {
    path: "stores/:id",
    lazy: async () => ({ Component: (await import("./pages/store/StorePage")).StorePage }),
  },
];

/** Where a person lands after login: the overview for L1 to L4, the tenant tree for the others. */
function Landing() {
  const { identity } = useSession();
  const overview = identity !== null && identity.tier >= 1 && identity.tier <= 4;
  return <Navigate to={overview ? "/overview" : "/tree"} replace />;
}

export const router = createBrowserRouter(
  [
    {
      path: "login",
      lazy: async () => ({ Component: (await import("./pages/login/LoginPage")).LoginPage }),
    },
    {
      element: <Layout pages={pages} />,
      errorElement: <RouteError />,
      children: [
        { index: true, element: <Landing /> },
        ...pages.map(({ path, lazy }) => ({ path, lazy, errorElement: <RouteError /> })),
        { path: "*", lazy: async () => ({ Component: (await import("./pages/not-found/NotFoundPage")).NotFoundPage }) },
      ],
    },
  ],
  { basename: "/console" },
);
