import { AppShell, Burger, Button, Group, NavLink, Text, Title } from "@mantine/core";
import { useDisclosure } from "@mantine/hooks";
import { Suspense } from "react";
import { Navigate, Outlet, NavLink as RouterLink, useLocation } from "react-router";
import type { Identity } from "../session/session";
import { useLogOut } from "../session/useLogOut";
import { useSession, useTokenRefresh } from "../session/useSession";
import { ImpersonationBanner } from "./ImpersonationBanner";
import { Loading } from "./Loading";

/** A page as the navigation shows it: in the menu, with its label, to the tiers `shownTo` accepts. */
export interface NavigationEntry {
  path: string;
  label?: string;
  shownTo?: (identity: Identity) => boolean;
}

/**
 * The shell of every page after login: header, navigation for the caller's tier, the impersonation banner. The
 * route table hands it the pages, so the shell does not import the routes that render it.
 */
export function Layout({ pages }: { pages: readonly NavigationEntry[] }) {
  const { identity } = useSession();
  const location = useLocation();
  const [opened, { toggle }] = useDisclosure();
  const { logOut, loading } = useLogOut();
  useTokenRefresh();
  if (!identity) return <Navigate to="/login" replace state={{ from: location.pathname }} />;

  return (
    <AppShell
      padding="md"
      header={{ height: 56 }}
      navbar={{ width: 220, breakpoint: "sm", collapsed: { mobile: !opened } }}
    >
      <AppShell.Header>
        <Group h="100%" px="md" justify="space-between">
          <Group>
            <Burger opened={opened} onClick={toggle} hiddenFrom="sm" size="sm" aria-label="Navigation" />
            <Title order={1} size="h4">
              POS cloud console
            </Title>
          </Group>
          <Group>
            <Text size="sm" data-testid="role">
              {identity.role}
            </Text>
            <Button variant="default" size="xs" onClick={logOut} loading={loading}>
              Log out
            </Button>
          </Group>
        </Group>
      </AppShell.Header>
      <AppShell.Navbar p="xs" aria-label="Main">
        {pages.map(
          (page) =>
            page.label &&
            page.shownTo?.(identity) && (
              <NavLink
                key={page.path}
                component={RouterLink}
                to={`/${page.path}`}
                label={page.label}
                variant="filled"
              />
            ),
        )}
      </AppShell.Navbar>
      <AppShell.Main>
        {identity.impersonated_by && <ImpersonationBanner />}
        <Suspense fallback={<Loading />}>
          <Outlet />
        </Suspense>
      </AppShell.Main>
    </AppShell>
  );
}
