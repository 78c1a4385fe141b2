import type { Envelope, ValidationMessage } from "../wire/index.ts";

export function ok<T>(requested: T): Envelope<T> {
  return { Links: [], RequestedObject: requested, IsSuccessful: true, ValidationMessages: [] };
}

export function okId(id: number): Envelope<{ Id: number }> {
  return ok({ Id: id });
}

export function failed(messages: ValidationMessage[]): Envelope<Record<string, never>> {
  return { Links: [], RequestedObject: {}, IsSuccessful: false, ValidationMessages: messages };
}
