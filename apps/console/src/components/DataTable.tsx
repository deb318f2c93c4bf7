import { Table, Text } from "@mantine/core";
import type { ReactNode } from "react";

export interface Column<Row> {
  header: string;
  /** Names the cell for tests and styles (`data-field`). */
  field?: string;
  cell: (row: Row) => ReactNode;
}

/** Rows of one kind in a table named for screen readers; `empty` when there are none. */
export function DataTable<Row>(props: {
  label: string;
  columns: Column<Row>[];
  rows: readonly Row[];
  rowKey: (row: Row) => string;
  empty?: string;
}) {
  if (props.rows.length === 0) return <Text c="dimmed">{props.empty ?? "None."}</Text>;
  return (
    <Table aria-label={props.label} striped>
      <Table.Thead>
        <Table.Tr>
          {props.columns.map((column) => (
            <Table.Th key={column.header}>{column.header}</Table.Th>
          ))}
        </Table.Tr>
      </Table.Thead>
      <Table.Tbody>
        {props.rows.map((row) => (
          <Table.Tr key={props.rowKey(row)} data-testid={props.rowKey(row)}>
            {props.columns.map((column) => (
              <Table.Td key={column.header} data-field={column.field}>
                {column.cell(row)}
              </Table.Td>
            ))}
          </Table.Tr>
        ))}
      </Table.Tbody>
    </Table>
  );
}
