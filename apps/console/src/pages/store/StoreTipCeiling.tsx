import { useMutation } from "@apollo/client/react";
import { Button, Group, Paper, Text, TextInput, Title } from "@mantine/core";
import { type FormEvent, useState } from "react";
import { ErrorAlert } from "../../components/ErrorAlert";
import { notifyDone } from "../../components/notify";
import { type StorePageQuery, UpdateStorePaymentConfigDocument } from "../../graphql/graphql";
import { may } from "../../session/permissions";
import { useSession } from "../../session/useSession";

type Store = NonNullable<StorePageQuery["store"]>;
type Config = Record<string, unknown>;

const configOf = (value: unknown): Config => (value && typeof value === "object" ? (value as Config) : {});

const sources = (store: Store) => ({
  store: "this store's own",
  merchant: `inherited from ${store.merchant.name}`,
  default: "the platform default",
});

/**
 * How far above its amount a card payment of the store may be captured for a tip; merchant admins and above set it
 * or give it back to the merchant's default (a store's payment config is theirs, `updateStore`).
 */
export function StoreTipCeiling({ store }: { store: Store }) {
  const { identity } = useSession();
  const ceiling = store.tip_ceiling;
  const config = configOf(store.payment_config);
  const [value, setValue] = useState(String(ceiling.percent));
  const [update, state] = useMutation(UpdateStorePaymentConfigDocument);

  async function write(payment_config: Config, done: string) {
    const { data } = await update({ variables: { id: store.id, payment_config } }).catch(() => ({ data: undefined }));
    if (data) notifyDone(done);
    return data;
  }
  function save(event: FormEvent) {
    event.preventDefault();
    const percent = value.trim() === "" ? null : Number(value);
    void write({ ...config, tip_ceiling_percent: percent }, "Tip ceiling saved");
  }
  async function inherit() {
    const { tip_ceiling_percent: _, ...rest } = config;
    const data = await write(rest, "The store follows its merchant's tip ceiling");
    if (data) setValue(String(data.updateStore.tip_ceiling.percent));
  }

  return (
    <Paper withBorder p="md" component="section" aria-labelledby="tip-ceiling-title">
      <Title order={3} id="tip-ceiling-title" mb="sm">
        Tip ceiling
      </Title>
      <Text data-testid="tip-ceiling">
        A card may be captured up to {ceiling.percent} % above its amount for a tip ({sources(store)[ceiling.source]}).
      </Text>
      {identity && may.setTipCeiling(identity) && (
        <form onSubmit={save}>
          <Group mt="sm" align="end">
            <TextInput
              label="Tip ceiling (%, 0 to 100)"
              type="number"
              min={0}
              max={100}
              step={1}
              value={value}
              onChange={(e) => setValue(e.currentTarget.value)}
              w={220}
            />
            <Button type="submit" loading={state.loading}>
              Save tip ceiling
            </Button>
            {"tip_ceiling_percent" in config && (
              <Button variant="default" onClick={inherit} loading={state.loading}>
                Use the merchant's default
              </Button>
            )}
          </Group>
          {state.error && <ErrorAlert error={state.error} />}
        </form>
      )}
    </Paper>
  );
}
