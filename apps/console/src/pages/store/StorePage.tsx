import { useQuery } from "@apollo/client/react";
import { Anchor, Breadcrumbs, Stack, Text, Title } from "@mantine/core";
import { Link, useParams } from "react-router";
import { ErrorAlert } from "../../components/ErrorAlert";
import { Loading } from "../../components/Loading";
import { StatusBadge } from "../../components/StatusBadge";
import { StorePageDocument } from "../../graphql/graphql";
import { StoreDetails } from "./StoreDetails";
import { StoreDevices } from "./StoreDevices";
import { StoreStaff } from "./StoreStaff";
import { StoreTipCeiling } from "./StoreTipCeiling";

/** One store: details, tip ceiling, terminals (with provisioning) and staff; the server refuses a store outside the caller's reach. */
export function StorePage() {
  const id = Number(useParams().id);
  // Terminals report and register on their own: the page reads the store again every few seconds.
  const { data, error } = useQuery(StorePageDocument, {
    variables: { id },
    skip: !Number.isInteger(id),
    pollInterval: 5000,
  });
  const store = data?.store;
  return (
    <Stack>
      <Breadcrumbs>
        <Anchor component={Link} to="/tree">
          Tenant tree
        </Anchor>
        <Text>{store?.name ?? `Store ${useParams().id}`}</Text>
      </Breadcrumbs>
      {!Number.isInteger(id) && <ErrorAlert error={new Error("This address names no store.")} />}
      {error && <ErrorAlert error={error} />}
      {store ? (
        <>
          <Title order={2}>
            {store.name} <StatusBadge status={store.status} />
          </Title>
          <StoreDetails store={store} />
          <StoreTipCeiling store={store} />
          <StoreDevices store={store} />
          <StoreStaff store={store} />
        </>
      ) : (
        !error && Number.isInteger(id) && <Loading />
      )}
    </Stack>
  );
}
