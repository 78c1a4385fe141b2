import {
  type Contact,
  ContactType,
  type ContactWrite,
  contactSubTypeAllowed,
  type ValidationMessage,
} from "../../wire/index.ts";
import { message } from "../failure.ts";
import type { Store } from "../store.ts";

const EMAIL = /^[^\s@]+@[^\s@]+$/;

function problemsOf(contact: ContactWrite, at: string): ValidationMessage[] {
  const { ContactType: type, ContactSubType: subType, Value: value } = contact;
  if (type !== ContactType.Email && type !== ContactType.Phone) {
    return [
      message("InvalidContactType", `${at}.ContactType must be 7 (Email) or 9 (Phone), not ${type}.`, {
        erroredValue: type,
      }),
    ];
  }
  const problems: ValidationMessage[] = [];
  if (!contactSubTypeAllowed(type, subType)) {
    const allowed = type === ContactType.Phone ? "3 to 14" : "2, 3, 5, 6, 9 to 12 and 14";
    problems.push(
      message(
        "InvalidContactSubType",
        `${at}.ContactSubType ${subType} is not available for ContactType ${type}; use ${allowed}.`,
        { erroredValue: subType },
      ),
    );
  }
  if (type === ContactType.Email && !EMAIL.test(value)) {
    problems.push(message("InvalidEmail", `${at}.Value is not an e-mail address.`, { erroredValue: value }));
  }
  return problems;
}

function defaultsProblems(contacts: readonly ContactWrite[]): ValidationMessage[] {
  return [ContactType.Email, ContactType.Phone]
    .filter((type) => contacts.filter((c) => c.ContactType === type && c.IsDefault).length > 1)
    .map((type) =>
      message(
        "MultipleDefaultContacts",
        `Contacts: at most one ${type === ContactType.Email ? "e-mail" : "phone"} contact may be the default.`,
      ),
    );
}

/** Every problem of a contact list sent on update; empty when it is valid. */
export function contactProblems(contacts: readonly ContactWrite[]): ValidationMessage[] {
  return [
    ...contacts.flatMap((contact, i) => problemsOf(contact, `Contacts[${i}]`)),
    ...defaultsProblems(contacts),
  ];
}

/**
 * The stored form of a valid list. A contact keeps its `Id` when it names one of the user's
 * current contacts (each once); any other contact gets a new id.
 */
export function storedContacts(
  store: Store,
  contacts: readonly ContactWrite[],
  current: readonly Contact[],
): Contact[] {
  const reusable = new Set(current.map((c) => c.Id).filter((id): id is number => typeof id === "number"));
  return contacts.map((contact) => {
    const keep = contact.Id != null && reusable.delete(contact.Id);
    return {
      Id: keep ? (contact.Id as number) : store.nextId("contact"),
      ContactType: contact.ContactType,
      ContactSubType: contact.ContactSubType,
      IsDefault: contact.IsDefault ?? false,
      Value: contact.Value,
    };
  });
}
