import type { Application } from '../../app/application.js';
import type { Clock } from '../../core/clock.js';
import { type StoredRecord, dateValue } from '../../core/values.js';
import type { FieldOp, StorageAdapter } from '../../storage/port.js';
import { tableSetup } from '../table-setup.js';
import { findPlan, whereEquals } from '../../query/plan-builders.js';
import type { Random } from '../../core/random.js';
import { randomHex } from '../../core/random.js';

/** Payment orders: readable and queryable with the master key (`/1/classes/_Order`); `/1/pay/:no` serves one to its buyer too. */
export const ORDER_CLASS = '_Order';

export type OrderStatus = 'NOTPAY' | 'SUCCESS';

/** One order as the pay service keeps it; amounts in fen (hundredths of a yuan). */
export interface Order {
  readonly objectId: string;
  readonly out_trade_no: string;
  readonly total_fee: number;
  readonly refunded_fee: number;
  readonly status: OrderStatus;
  readonly openid: string;
  readonly product_name: string;
  readonly transaction_id?: string;
  /** The buyer: the user whose session placed the order; absent when it was placed anonymously. */
  readonly userId?: string;
}

function toOrder(record: StoredRecord): Order {
  return record as unknown as Order;
}

export interface OrderStore {
  create(app: Application, fields: Omit<Order, 'objectId' | 'refunded_fee' | 'status' | 'userId'> & { readonly body: string; readonly prepay_id: string; readonly userId: string | null }): Promise<Order>;
  find(app: Application, outTradeNo: string): Promise<Order | null>;
  /** NOTPAY → SUCCESS with the platform's transaction id; false when it was already paid. */
  markPaid(app: Application, order: Order, transactionId: string, paidAt: number): Promise<boolean>;
  /** Adds `fee` to `refunded_fee` atomically and answers the new total. */
  addRefunded(app: Application, order: Order, fee: number): Promise<number>;
}

export function createOrderStore(deps: { readonly storage: StorageAdapter; readonly clock: Clock; readonly random: Random }): OrderStore {
  const setup = tableSetup(deps.storage, ORDER_CLASS, {
    out_trade_no: { type: 'String' },
    total_fee: { type: 'Number' },
    refunded_fee: { type: 'Number' },
    status: { type: 'String' },
    openid: { type: 'String' },
    product_name: { type: 'String' },
    body: { type: 'String' },
    prepay_id: { type: 'String' },
    transaction_id: { type: 'String' },
    userId: { type: 'String' },
    paidAt: { type: 'Date' },
  }, 'out_trade_no');
  const now = () => dateValue(deps.clock.now());
  return {
    async create(app, fields) {
      const ref = await setup(app);
      const at = now();
      const record = {
        objectId: randomHex(deps.random, 8),
        createdAt: at,
        updatedAt: at,
        ...fields,
        refunded_fee: 0,
        status: 'NOTPAY',
      } as unknown as StoredRecord;
      if (fields.userId === null) delete (record as Record<string, unknown>).userId;
      await deps.storage.insert(ref, record);
      return toOrder(record);
    },
    async find(app, outTradeNo) {
      const found = await deps.storage.find(await setup(app), findPlan(whereEquals('out_trade_no', outTradeNo), 1));
      return found[0] ? toOrder(found[0]) : null;
    },
    async markPaid(app, order, transactionId, paidAt) {
      // Read-check-write inside one transaction where the adapter has them, so two notifications
      // racing each other mark the order once.
      const ref = await setup(app);
      const write = async (storage: StorageAdapter) => {
        const current = await storage.get(ref, order.objectId);
        if (!current || current.status === 'SUCCESS') return false;
        const ops: FieldOp[] = [
          { kind: 'set', column: 'status', path: [], value: 'SUCCESS' },
          { kind: 'set', column: 'transaction_id', path: [], value: transactionId },
          { kind: 'set', column: 'paidAt', path: [], value: dateValue(paidAt) },
        ];
        await storage.update(ref, order.objectId, ops, now());
        return true;
      };
      return deps.storage.capabilities.transactions ? deps.storage.transaction(write) : write(deps.storage);
    },
    async addRefunded(app, order, fee) {
      const updated = await deps.storage.update(await setup(app), order.objectId, [{ kind: 'increment', column: 'refunded_fee', path: [], amount: fee }], now());
      return Number(updated?.refunded_fee ?? fee);
    },
  };
}
