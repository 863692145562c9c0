"""Load a PROV-JSON document with the W3C `prov` library (Debian's python3-prov) and summarise it.

Reads the document on stdin; prints one JSON object: the record count per PROV record type,
each agent's and entity's prov:type values (with whether the library parsed them as qualified
names), whether a serialise/deserialise round trip is equal, and the PROV-N rendering's size.
Exits 2 when the library refuses the document.
"""
import json
import sys

from prov.model import ProvDocument, QualifiedName, PROV_TYPE

try:
    doc = ProvDocument.deserialize(content=sys.stdin.read(), format="json")
except Exception as error:  # the library's refusal is the finding
    print(json.dumps({"error": f"{type(error).__name__}: {error}"}))
    sys.exit(2)

counts = {}
types = {}
for record in doc.get_records():
    name = record.get_type().localpart
    counts[name] = counts.get(name, 0) + 1
    if record.is_element():
        values = record.get_attribute(PROV_TYPE)
        types[str(record.identifier)] = sorted(
            [{"value": str(v), "qualified": isinstance(v, QualifiedName), "uri": v.uri if isinstance(v, QualifiedName) else None} for v in values],
            key=lambda v: v["value"],
        )

again = ProvDocument.deserialize(content=doc.serialize(format="json"), format="json")
print(json.dumps({"counts": counts, "types": types, "round_trip_equal": again == doc, "provn_chars": len(doc.get_provn())}))
