import CampaignMockRuntime
import CampaignMockStorage
import CampaignMockSupport

/// `xtk:builder#InstallPackage`: a package of entities, as Campaign's package export writes it
/// (`<pkgDesc><package namespace name label><entities schema="xtk:option"><option …/></entities>…`) or as
/// acc-js-sdk sends a JSON package. Options and enumerations it carries are stored, so `GetOption` and
/// queries on `xtk:option` / `xtk:enumValue` see them; entities of other schemas are accepted and counted.
/// The package is recorded, listed in `userInfo` (so `hasPackage` sees it) and journaled with what it held.
extension SOAPEndpoint {
    func installPackage(_ call: SOAPCall, _ method: SchemaCatalogue.Method) throws(SOAPFault) -> EndpointResult {
        let root = try call.document("domPackage")
        guard let package = root.localName == "package" ? root : root.element("package") else {
            throw .badParameters(call.method, service: call.service, "the document holds no <package> element")
        }
        var options: [StoredOption] = []
        var enumValues: [(enumeration: String, name: String, label: String?, image: String?, order: Int)] = []
        var counts: [String: Int] = [:]
        for entities in package.elements where entities.localName == "entities" {
            let schema = entities.attribute("schema") ?? ""
            for entity in entities.elements {
                counts[schema, default: 0] += 1
                switch schema {
                case "xtk:option":
                    guard let name = entity.attribute("name"), !name.isEmpty else {
                        throw .badParameters(call.method, service: call.service, "an xtk:option entity has no name")
                    }
                    let value =
                        ["stringValue", "longValue", "doubleValue", "timeStampValue", "memoValue"].lazy.compactMap {
                            entity.attribute($0) ?? entity.element($0)?.text
                        }.first ?? ""
                    options.append(
                        StoredOption(
                            name: name, dataType: Int(entity.attribute("dataType") ?? "") ?? 6, value: value,
                            description: entity.attribute("description")))
                case "xtk:enum":
                    guard let enumeration = entity.attribute("name"), !enumeration.isEmpty else {
                        throw .badParameters(call.method, service: call.service, "an xtk:enum entity has no name")
                    }
                    for (index, value) in entity.elements.filter({ $0.localName == "value" }).enumerated() {
                        guard let name = value.attribute("name") else { continue }
                        enumValues.append(
                            (enumeration, name, value.attribute("label"), value.attribute("img"), index + 1))
                    }
                default:
                    break
                }
            }
        }
        let namespace = package.attribute("namespace") ?? ""
        let name = package.attribute("name") ?? ""
        let label = package.attribute("label")
        let total = counts.values.reduce(0, +)
        let held = counts.keys.sorted().map { "\(counts[$0]!) \($0.isEmpty ? "entities without schema" : $0)" }
        let title = namespace.isEmpty && name.isEmpty ? "a package" : "package \(namespace):\(name)"
        return EndpointResult(
            response: SOAPResponse.outputs(method, service: call.service, []),
            reason: "installed \(title): " + (held.isEmpty ? "no entities" : held.joined(separator: ", "))
        ) { [options, enumValues] transaction in
            for option in options { try transaction.writeOption(option) }
            for value in enumValues {
                try transaction.upsertEnumValue(
                    enumeration: value.enumeration, name: value.name, label: value.label, image: value.image,
                    order: value.order)
            }
            try transaction.recordPackage(
                namespace: namespace, name: name, label: label, format: root.localName, entities: total)
        }
    }
}
