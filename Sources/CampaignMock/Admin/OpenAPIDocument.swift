/// The OpenAPI 3.1 description of the admin API, served at `GET /_mock/openapi.json`.
///
/// Kept true by tests: every documented path answers, and every `/_mock/` route is documented.
/// CI also runs schemathesis against a live server with it.
enum OpenAPIDocument {
    static let bytes = Array(text.utf8)

    static let text = #"""
        {
          "components": {
            "schemas": {
              "Application": {
                "additionalProperties": false,
                "properties": {
                  "enabled": {
                    "type": "boolean"
                  },
                  "integrationKey": {
                    "pattern": "^[!-~]{1,255}$",
                    "type": "string"
                  },
                  "name": {
                    "maxLength": 255,
                    "minLength": 1,
                    "type": "string"
                  },
                  "platform": {
                    "enum": [
                      "ios",
                      "android"
                    ],
                    "type": "string"
                  }
                },
                "required": [
                  "name",
                  "platform",
                  "integrationKey",
                  "enabled"
                ],
                "type": "object"
              },
              "ApplicationChange": {
                "additionalProperties": false,
                "properties": {
                  "enabled": {
                    "type": "boolean"
                  },
                  "name": {
                    "maxLength": 255,
                    "minLength": 1,
                    "type": "string"
                  }
                },
                "type": "object"
              },
              "ComposedPush": {
                "properties": {
                  "createdAt": {
                    "type": "string"
                  },
                  "deliveryId": {
                    "type": "string"
                  },
                  "id": {
                    "type": "integer"
                  },
                  "idStyle": {
                    "enum": [
                      "v7",
                      "v7-negative",
                      "v7-64",
                      "v8"
                    ],
                    "type": "string"
                  },
                  "messages": {
                    "items": {
                      "properties": {
                        "adb": {
                          "items": {
                            "type": "string"
                          },
                          "type": "array"
                        },
                        "apns": {
                          "type": "object"
                        },
                        "apnsFile": {
                          "type": "string"
                        },
                        "app": {
                          "type": "string"
                        },
                        "deliveryId": {
                          "type": "string"
                        },
                        "fcm": {
                          "type": "object"
                        },
                        "messageId": {
                          "type": "string"
                        },
                        "platform": {
                          "enum": [
                            "ios",
                            "android"
                          ],
                          "type": "string"
                        },
                        "registrationToken": {
                          "type": "string"
                        },
                        "simctl": {
                          "type": "string"
                        },
                        "tracking": {
                          "properties": {
                            "open": {
                              "type": "string"
                            },
                            "receive": {
                              "type": "string"
                            }
                          },
                          "required": [
                            "receive",
                            "open"
                          ],
                          "type": "object"
                        }
                      },
                      "required": [
                        "registrationToken",
                        "platform",
                        "app",
                        "messageId",
                        "deliveryId",
                        "tracking"
                      ],
                      "type": "object"
                    },
                    "type": "array"
                  },
                  "warnings": {
                    "items": {
                      "type": "string"
                    },
                    "type": "array"
                  }
                },
                "required": [
                  "id",
                  "createdAt",
                  "deliveryId",
                  "idStyle",
                  "messages",
                  "warnings"
                ],
                "type": "object"
              },
              "Device": {
                "properties": {
                  "application": {
                    "properties": {
                      "integrationKey": {
                        "type": "string"
                      },
                      "name": {
                        "type": "string"
                      },
                      "platform": {
                        "enum": [
                          "ios",
                          "android"
                        ],
                        "type": "string"
                      }
                    },
                    "required": [
                      "integrationKey",
                      "name",
                      "platform"
                    ],
                    "type": "object"
                  },
                  "createdAt": {
                    "type": "string"
                  },
                  "device": {
                    "$ref": "#/components/schemas/DeviceFields"
                  },
                  "disabled": {
                    "type": "boolean"
                  },
                  "history": {
                    "items": {
                      "$ref": "#/components/schemas/HistoryEntry"
                    },
                    "type": "array"
                  },
                  "messages": {
                    "items": {
                      "properties": {
                        "deliveryId": {
                          "type": "string"
                        },
                        "messageId": {
                          "type": "string"
                        },
                        "openedAt": {
                          "type": "string"
                        },
                        "pushId": {
                          "type": "integer"
                        },
                        "receivedAt": {
                          "type": "string"
                        },
                        "sentAt": {
                          "type": "string"
                        }
                      },
                      "required": [
                        "messageId",
                        "deliveryId",
                        "sentAt"
                      ],
                      "type": "object"
                    },
                    "type": "array"
                  },
                  "params": {
                    "items": {
                      "$ref": "#/components/schemas/Param"
                    },
                    "type": "array"
                  },
                  "registrationCount": {
                    "type": "integer"
                  },
                  "registrationToken": {
                    "type": "string"
                  },
                  "updatedAt": {
                    "type": "string"
                  },
                  "userKey": {
                    "type": "string"
                  }
                },
                "required": [
                  "registrationToken",
                  "application",
                  "userKey",
                  "device",
                  "params",
                  "disabled",
                  "createdAt",
                  "updatedAt",
                  "registrationCount"
                ],
                "type": "object"
              },
              "DeviceFields": {
                "additionalProperties": false,
                "properties": {
                  "deviceBrand": {
                    "type": "string"
                  },
                  "deviceImei": {
                    "type": "string"
                  },
                  "deviceManufacturer": {
                    "type": "string"
                  },
                  "deviceModel": {
                    "type": "string"
                  },
                  "deviceName": {
                    "type": "string"
                  },
                  "osLanguage": {
                    "type": "string"
                  },
                  "osName": {
                    "type": "string"
                  },
                  "osVersion": {
                    "type": "string"
                  }
                },
                "type": "object"
              },
              "DevicePage": {
                "properties": {
                  "devices": {
                    "items": {
                      "$ref": "#/components/schemas/Device"
                    },
                    "type": "array"
                  },
                  "nextCursor": {
                    "type": "integer"
                  }
                },
                "required": [
                  "devices"
                ],
                "type": "object"
              },
              "Error": {
                "properties": {
                  "error": {
                    "type": "string"
                  }
                },
                "required": [
                  "error"
                ],
                "type": "object"
              },
              "Event": {
                "properties": {
                  "deliveryId": {
                    "type": "string"
                  },
                  "id": {
                    "type": "integer"
                  },
                  "linked": {
                    "properties": {
                      "deliveryId": {
                        "type": "string"
                      },
                      "integrationKey": {
                        "type": "string"
                      },
                      "messageId": {
                        "type": "string"
                      },
                      "registrationToken": {
                        "type": "string"
                      }
                    },
                    "required": [
                      "messageId",
                      "deliveryId"
                    ],
                    "type": "object"
                  },
                  "messageHex": {
                    "type": "string"
                  },
                  "messageUuid": {
                    "type": "string"
                  },
                  "messageValue": {
                    "type": "string"
                  },
                  "rawId": {
                    "type": "string"
                  },
                  "receivedAt": {
                    "type": "string"
                  },
                  "remoteAddress": {
                    "type": "string"
                  },
                  "tag": {
                    "enum": [
                      1,
                      2
                    ],
                    "type": "integer"
                  },
                  "type": {
                    "enum": [
                      "receive",
                      "open"
                    ],
                    "type": "string"
                  },
                  "userAgent": {
                    "type": "string"
                  }
                },
                "required": [
                  "id",
                  "receivedAt",
                  "tag",
                  "type",
                  "rawId",
                  "deliveryId"
                ],
                "type": "object"
              },
              "EventPage": {
                "properties": {
                  "events": {
                    "items": {
                      "$ref": "#/components/schemas/Event"
                    },
                    "type": "array"
                  },
                  "nextCursor": {
                    "type": "integer"
                  }
                },
                "required": [
                  "events"
                ],
                "type": "object"
              },
              "FaultList": {
                "properties": {
                  "faults": {
                    "items": {
                      "properties": {
                        "fired": {
                          "type": "integer"
                        },
                        "matched": {
                          "type": "integer"
                        },
                        "rule": {
                          "$ref": "#/components/schemas/FaultRule"
                        }
                      },
                      "required": [
                        "rule",
                        "matched",
                        "fired"
                      ],
                      "type": "object"
                    },
                    "type": "array"
                  }
                },
                "required": [
                  "faults"
                ],
                "type": "object"
              },
              "FaultRule": {
                "additionalProperties": false,
                "allOf": [
                  {
                    "anyOf": [
                      {
                        "required": [
                          "status"
                        ]
                      },
                      {
                        "properties": {
                          "delayMs": {
                            "minimum": 1
                          }
                        },
                        "required": [
                          "delayMs"
                        ]
                      },
                      {
                        "properties": {
                          "drop": {
                            "const": true
                          }
                        },
                        "required": [
                          "drop"
                        ]
                      },
                      {
                        "properties": {
                          "reset": {
                            "const": true
                          }
                        },
                        "required": [
                          "reset"
                        ]
                      }
                    ]
                  },
                  {
                    "not": {
                      "anyOf": [
                        {
                          "properties": {
                            "drop": {
                              "const": true
                            }
                          },
                          "required": [
                            "status",
                            "drop"
                          ]
                        },
                        {
                          "properties": {
                            "reset": {
                              "const": true
                            }
                          },
                          "required": [
                            "status",
                            "reset"
                          ]
                        },
                        {
                          "properties": {
                            "drop": {
                              "const": true
                            },
                            "reset": {
                              "const": true
                            }
                          },
                          "required": [
                            "drop",
                            "reset"
                          ]
                        }
                      ]
                    }
                  }
                ],
                "dependentRequired": {
                  "body": [
                    "status"
                  ],
                  "seed": [
                    "probability"
                  ]
                },
                "description": "Match (endpoint, appKey, token, method), action (status + body, delayMs, drop, reset), schedule (times, after, probability + seed).",
                "properties": {
                  "after": {
                    "maximum": 1000000000,
                    "minimum": 0,
                    "type": "integer"
                  },
                  "appKey": {
                    "type": "string"
                  },
                  "body": {
                    "type": "string"
                  },
                  "delayMs": {
                    "maximum": 300000,
                    "minimum": 0,
                    "type": "integer"
                  },
                  "drop": {
                    "type": "boolean"
                  },
                  "endpoint": {
                    "enum": [
                      "registration-ios",
                      "registration-android",
                      "tracking",
                      "soap",
                      "health",
                      "any"
                    ],
                    "type": "string"
                  },
                  "id": {
                    "pattern": "^[A-Za-z0-9_.-]{1,64}$",
                    "type": "string"
                  },
                  "method": {
                    "pattern": "^[A-Za-z]+$",
                    "type": "string"
                  },
                  "probability": {
                    "maximum": 1,
                    "minimum": 0,
                    "type": "number"
                  },
                  "reset": {
                    "type": "boolean"
                  },
                  "seed": {
                    "maximum": 9007199254740991,
                    "minimum": 0,
                    "type": "integer"
                  },
                  "status": {
                    "maximum": 599,
                    "minimum": 100,
                    "type": "integer"
                  },
                  "times": {
                    "maximum": 1000000000,
                    "minimum": 1,
                    "type": "integer"
                  },
                  "token": {
                    "type": "string"
                  }
                },
                "required": [
                  "endpoint"
                ],
                "type": "object"
              },
              "Health": {
                "properties": {
                  "status": {
                    "const": "ok",
                    "type": "string"
                  },
                  "uptimeSeconds": {
                    "type": "number"
                  },
                  "version": {
                    "type": "string"
                  }
                },
                "required": [
                  "status",
                  "version",
                  "uptimeSeconds"
                ],
                "type": "object"
              },
              "HistoryEntry": {
                "properties": {
                  "changes": {
                    "items": {
                      "type": "string"
                    },
                    "type": "array"
                  },
                  "device": {
                    "$ref": "#/components/schemas/DeviceFields"
                  },
                  "id": {
                    "type": "integer"
                  },
                  "params": {
                    "items": {
                      "$ref": "#/components/schemas/Param"
                    },
                    "type": "array"
                  },
                  "receivedAt": {
                    "type": "string"
                  },
                  "userKey": {
                    "type": "string"
                  }
                },
                "required": [
                  "id",
                  "receivedAt",
                  "changes",
                  "userKey",
                  "device",
                  "params"
                ],
                "type": "object"
              },
              "ImportResult": {
                "additionalProperties": {
                  "type": "integer"
                },
                "type": "object"
              },
              "JournalEntry": {
                "properties": {
                  "appKey": {
                    "type": "string"
                  },
                  "body": {
                    "type": "string"
                  },
                  "bodyEncoding": {
                    "enum": [
                      "utf-8",
                      "base64"
                    ],
                    "type": "string"
                  },
                  "bodyTruncated": {
                    "type": "boolean"
                  },
                  "durationMs": {
                    "type": "number"
                  },
                  "endpoint": {
                    "type": "string"
                  },
                  "headers": {
                    "items": {
                      "items": {
                        "type": "string"
                      },
                      "type": "array"
                    },
                    "type": "array"
                  },
                  "id": {
                    "type": "integer"
                  },
                  "method": {
                    "type": "string"
                  },
                  "reason": {
                    "type": "string"
                  },
                  "receivedAt": {
                    "type": "string"
                  },
                  "remoteAddress": {
                    "type": "string"
                  },
                  "status": {
                    "type": "integer"
                  },
                  "target": {
                    "type": "string"
                  }
                },
                "required": [
                  "id",
                  "receivedAt",
                  "method",
                  "target",
                  "endpoint",
                  "headers",
                  "body",
                  "bodyEncoding",
                  "bodyTruncated",
                  "status",
                  "durationMs"
                ],
                "type": "object"
              },
              "JournalPage": {
                "properties": {
                  "dropped": {
                    "type": "integer"
                  },
                  "nextCursor": {
                    "type": "integer"
                  },
                  "requests": {
                    "items": {
                      "$ref": "#/components/schemas/JournalEntry"
                    },
                    "type": "array"
                  }
                },
                "required": [
                  "requests",
                  "dropped"
                ],
                "type": "object"
              },
              "NewApplication": {
                "additionalProperties": false,
                "properties": {
                  "enabled": {
                    "type": "boolean"
                  },
                  "integrationKey": {
                    "pattern": "^[!-~]{1,255}$",
                    "type": "string"
                  },
                  "name": {
                    "maxLength": 255,
                    "minLength": 1,
                    "type": "string"
                  },
                  "platform": {
                    "enum": [
                      "ios",
                      "android"
                    ],
                    "type": "string"
                  }
                },
                "required": [
                  "platform",
                  "integrationKey"
                ],
                "type": "object"
              },
              "Param": {
                "additionalProperties": false,
                "properties": {
                  "name": {
                    "minLength": 1,
                    "type": "string"
                  },
                  "type": {
                    "enum": [
                      "string",
                      "integer",
                      "decimal",
                      "boolean"
                    ],
                    "type": "string"
                  },
                  "value": {
                    "type": "string"
                  }
                },
                "required": [
                  "name",
                  "value",
                  "type"
                ],
                "type": "object"
              },
              "PushRequest": {
                "additionalProperties": false,
                "allOf": [
                  {
                    "oneOf": [
                      {
                        "not": {
                          "required": [
                            "userKey"
                          ]
                        },
                        "required": [
                          "token"
                        ]
                      },
                      {
                        "not": {
                          "required": [
                            "token"
                          ]
                        },
                        "required": [
                          "userKey",
                          "app"
                        ]
                      }
                    ]
                  },
                  {
                    "anyOf": [
                      {
                        "properties": {
                          "title": {
                            "minLength": 1
                          }
                        },
                        "required": [
                          "title"
                        ]
                      },
                      {
                        "properties": {
                          "body": {
                            "minLength": 1
                          }
                        },
                        "required": [
                          "body"
                        ]
                      },
                      {
                        "properties": {
                          "silent": {
                            "const": true
                          }
                        },
                        "required": [
                          "silent"
                        ]
                      }
                    ]
                  }
                ],
                "description": "token, or userKey with app; a title or a body unless silent.",
                "properties": {
                  "androidPackage": {
                    "type": "string"
                  },
                  "app": {
                    "pattern": "^[!-~]{1,255}$",
                    "type": "string"
                  },
                  "badge": {
                    "maximum": 1000000,
                    "minimum": 0,
                    "type": "integer"
                  },
                  "body": {
                    "type": "string"
                  },
                  "bundleId": {
                    "type": "string"
                  },
                  "category": {
                    "type": "string"
                  },
                  "idStyle": {
                    "enum": [
                      "v7",
                      "v7-negative",
                      "v7-64",
                      "v8"
                    ],
                    "type": "string"
                  },
                  "mediaUrl": {
                    "type": "string"
                  },
                  "mutableContent": {
                    "type": "boolean"
                  },
                  "platform": {
                    "description": "Only devices of this platform.",
                    "enum": [
                      "ios",
                      "android"
                    ],
                    "type": "string"
                  },
                  "silent": {
                    "type": "boolean"
                  },
                  "sound": {
                    "type": "string"
                  },
                  "title": {
                    "type": "string"
                  },
                  "token": {
                    "minLength": 1,
                    "type": "string"
                  },
                  "userKey": {
                    "type": "string"
                  },
                  "variables": {
                    "additionalProperties": {
                      "type": "string"
                    },
                    "propertyNames": {
                      "not": {
                        "enum": [
                          "aps",
                          "_mId",
                          "_dId"
                        ]
                      }
                    },
                    "type": "object"
                  }
                },
                "type": "object"
              },
              "Ready": {
                "properties": {
                  "ready": {
                    "type": "boolean"
                  }
                },
                "required": [
                  "ready"
                ],
                "type": "object"
              },
              "ResetResult": {
                "properties": {
                  "deleted": {
                    "additionalProperties": {
                      "type": "integer"
                    },
                    "type": "object"
                  }
                },
                "required": [
                  "deleted"
                ],
                "type": "object"
              },
              "Snapshot": {
                "additionalProperties": false,
                "properties": {
                  "applications": {
                    "items": {
                      "$ref": "#/components/schemas/Application"
                    },
                    "type": "array"
                  },
                  "devices": {
                    "items": {
                      "additionalProperties": false,
                      "properties": {
                        "createdAt": {
                          "format": "date-time",
                          "type": "string"
                        },
                        "device": {
                          "$ref": "#/components/schemas/DeviceFields"
                        },
                        "disabled": {
                          "type": "boolean"
                        },
                        "history": {
                          "items": {
                            "additionalProperties": false,
                            "properties": {
                              "changes": {
                                "items": {
                                  "type": "string"
                                },
                                "type": "array"
                              },
                              "device": {
                                "$ref": "#/components/schemas/DeviceFields"
                              },
                              "params": {
                                "items": {
                                  "$ref": "#/components/schemas/Param"
                                },
                                "type": "array"
                              },
                              "receivedAt": {
                                "format": "date-time",
                                "type": "string"
                              },
                              "userKey": {
                                "type": "string"
                              }
                            },
                            "required": [
                              "receivedAt",
                              "changes",
                              "userKey",
                              "device",
                              "params"
                            ],
                            "type": "object"
                          },
                          "type": "array"
                        },
                        "integrationKey": {
                          "pattern": "^[!-~]{1,255}$",
                          "type": "string"
                        },
                        "params": {
                          "items": {
                            "$ref": "#/components/schemas/Param"
                          },
                          "type": "array"
                        },
                        "registrationToken": {
                          "minLength": 1,
                          "type": "string"
                        },
                        "updatedAt": {
                          "format": "date-time",
                          "type": "string"
                        },
                        "userKey": {
                          "type": "string"
                        }
                      },
                      "required": [
                        "integrationKey",
                        "registrationToken",
                        "userKey",
                        "device",
                        "params",
                        "disabled",
                        "createdAt",
                        "updatedAt",
                        "history"
                      ],
                      "type": "object"
                    },
                    "type": "array"
                  },
                  "events": {
                    "items": {
                      "additionalProperties": false,
                      "properties": {
                        "messageId": {
                          "pattern": "^(-?[0-9]{1,18}|[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12})$",
                          "type": "string"
                        },
                        "rawId": {
                          "pattern": "^h([0-9a-fA-F]{1,16}|[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}),[^,]+,[12]$",
                          "type": "string"
                        },
                        "receivedAt": {
                          "format": "date-time",
                          "type": "string"
                        },
                        "remoteAddress": {
                          "type": "string"
                        },
                        "userAgent": {
                          "type": "string"
                        }
                      },
                      "required": [
                        "receivedAt",
                        "rawId"
                      ],
                      "type": "object"
                    },
                    "type": "array"
                  },
                  "faults": {
                    "items": {
                      "$ref": "#/components/schemas/FaultRule"
                    },
                    "type": "array"
                  },
                  "format": {
                    "const": "campaign-mock-state",
                    "type": "string"
                  },
                  "messages": {
                    "items": {
                      "additionalProperties": false,
                      "properties": {
                        "createdAt": {
                          "format": "date-time",
                          "type": "string"
                        },
                        "deliveryId": {
                          "minLength": 1,
                          "type": "string"
                        },
                        "integrationKey": {
                          "pattern": "^[!-~]{1,255}$",
                          "type": "string"
                        },
                        "messageId": {
                          "pattern": "^(-?[0-9]{1,18}|[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12})$",
                          "type": "string"
                        },
                        "registrationToken": {
                          "minLength": 1,
                          "type": "string"
                        }
                      },
                      "required": [
                        "messageId",
                        "deliveryId",
                        "createdAt"
                      ],
                      "type": "object"
                    },
                    "type": "array"
                  },
                  "version": {
                    "const": 1,
                    "type": "integer"
                  }
                },
                "required": [
                  "format",
                  "version",
                  "applications",
                  "devices",
                  "messages",
                  "events",
                  "faults"
                ],
                "type": "object"
              },
              "WaitAnswer": {
                "properties": {
                  "count": {
                    "type": "integer"
                  },
                  "error": {
                    "type": "string"
                  },
                  "for": {
                    "enum": [
                      "registration",
                      "receive",
                      "open",
                      "request"
                    ],
                    "type": "string"
                  },
                  "items": {
                    "items": {
                      "type": "object"
                    },
                    "type": "array"
                  },
                  "wanted": {
                    "type": "integer"
                  }
                },
                "required": [
                  "for",
                  "wanted",
                  "count",
                  "items"
                ],
                "type": "object"
              }
            },
            "securitySchemes": {
              "adminToken": {
                "scheme": "bearer",
                "type": "http"
              }
            }
          },
          "info": {
            "description": "Inspection and control of campaign-mock. Loopback clients only unless the server runs with --admin-token; then every call but /_mock/health and /_mock/ready needs `Authorization: Bearer <token>`.",
            "title": "campaign-mock admin API",
            "version": "0.1.0"
          },
          "openapi": "3.1.0",
          "paths": {
            "/_mock/apps": {
              "get": {
                "operationId": "listApps",
                "responses": {
                  "200": {
                    "content": {
                      "application/json": {
                        "schema": {
                          "properties": {
                            "apps": {
                              "items": {
                                "$ref": "#/components/schemas/Application"
                              },
                              "type": "array"
                            }
                          },
                          "required": [
                            "apps"
                          ],
                          "type": "object"
                        }
                      }
                    },
                    "description": "All applications."
                  },
                  "401": {
                    "content": {
                      "application/json": {
                        "schema": {
                          "$ref": "#/components/schemas/Error"
                        }
                      }
                    },
                    "description": "An admin token is configured and the request has no valid `Authorization: Bearer` header."
                  },
                  "403": {
                    "content": {
                      "application/json": {
                        "schema": {
                          "$ref": "#/components/schemas/Error"
                        }
                      }
                    },
                    "description": "No admin token is configured and the client is not on loopback."
                  }
                },
                "summary": "Applications."
              },
              "post": {
                "operationId": "addApp",
                "requestBody": {
                  "content": {
                    "application/json": {
                      "schema": {
                        "$ref": "#/components/schemas/NewApplication"
                      }
                    }
                  },
                  "required": true
                },
                "responses": {
                  "201": {
                    "content": {
                      "application/json": {
                        "schema": {
                          "$ref": "#/components/schemas/Application"
                        }
                      }
                    },
                    "description": "Added."
                  },
                  "400": {
                    "content": {
                      "application/json": {
                        "schema": {
                          "$ref": "#/components/schemas/Error"
                        }
                      }
                    },
                    "description": "Invalid."
                  },
                  "401": {
                    "content": {
                      "application/json": {
                        "schema": {
                          "$ref": "#/components/schemas/Error"
                        }
                      }
                    },
                    "description": "An admin token is configured and the request has no valid `Authorization: Bearer` header."
                  },
                  "403": {
                    "content": {
                      "application/json": {
                        "schema": {
                          "$ref": "#/components/schemas/Error"
                        }
                      }
                    },
                    "description": "No admin token is configured and the client is not on loopback."
                  },
                  "409": {
                    "content": {
                      "application/json": {
                        "schema": {
                          "$ref": "#/components/schemas/Error"
                        }
                      }
                    },
                    "description": "The integration key exists already."
                  }
                },
                "summary": "Add an application."
              }
            },
            "/_mock/apps/{key}": {
              "delete": {
                "operationId": "deleteApp",
                "parameters": [
                  {
                    "description": "Integration key.",
                    "in": "path",
                    "name": "key",
                    "required": true,
                    "schema": {
                      "minLength": 1,
                      "type": "string"
                    }
                  }
                ],
                "responses": {
                  "200": {
                    "content": {
                      "application/json": {
                        "schema": {
                          "properties": {
                            "deleted": {
                              "type": "string"
                            }
                          },
                          "required": [
                            "deleted"
                          ],
                          "type": "object"
                        }
                      }
                    },
                    "description": "Removed."
                  },
                  "401": {
                    "content": {
                      "application/json": {
                        "schema": {
                          "$ref": "#/components/schemas/Error"
                        }
                      }
                    },
                    "description": "An admin token is configured and the request has no valid `Authorization: Bearer` header."
                  },
                  "403": {
                    "content": {
                      "application/json": {
                        "schema": {
                          "$ref": "#/components/schemas/Error"
                        }
                      }
                    },
                    "description": "No admin token is configured and the client is not on loopback."
                  },
                  "404": {
                    "content": {
                      "application/json": {
                        "schema": {
                          "$ref": "#/components/schemas/Error"
                        }
                      }
                    },
                    "description": "No such application."
                  }
                },
                "summary": "Remove an application and its devices."
              },
              "put": {
                "operationId": "updateApp",
                "parameters": [
                  {
                    "description": "Integration key.",
                    "in": "path",
                    "name": "key",
                    "required": true,
                    "schema": {
                      "minLength": 1,
                      "type": "string"
                    }
                  }
                ],
                "requestBody": {
                  "content": {
                    "application/json": {
                      "schema": {
                        "$ref": "#/components/schemas/ApplicationChange"
                      }
                    }
                  },
                  "required": true
                },
                "responses": {
                  "200": {
                    "content": {
                      "application/json": {
                        "schema": {
                          "$ref": "#/components/schemas/Application"
                        }
                      }
                    },
                    "description": "Updated."
                  },
                  "400": {
                    "content": {
                      "application/json": {
                        "schema": {
                          "$ref": "#/components/schemas/Error"
                        }
                      }
                    },
                    "description": "Invalid."
                  },
                  "401": {
                    "content": {
                      "application/json": {
                        "schema": {
                          "$ref": "#/components/schemas/Error"
                        }
                      }
                    },
                    "description": "An admin token is configured and the request has no valid `Authorization: Bearer` header."
                  },
                  "403": {
                    "content": {
                      "application/json": {
                        "schema": {
                          "$ref": "#/components/schemas/Error"
                        }
                      }
                    },
                    "description": "No admin token is configured and the client is not on loopback."
                  },
                  "404": {
                    "content": {
                      "application/json": {
                        "schema": {
                          "$ref": "#/components/schemas/Error"
                        }
                      }
                    },
                    "description": "No such application."
                  }
                },
                "summary": "Rename, enable or disable an application."
              }
            },
            "/_mock/devices": {
              "get": {
                "operationId": "listDevices",
                "parameters": [
                  {
                    "description": "Integration key.",
                    "in": "query",
                    "name": "app",
                    "required": false,
                    "schema": {
                      "type": "string"
                    }
                  },
                  {
                    "description": "ios or android.",
                    "in": "query",
                    "name": "platform",
                    "required": false,
                    "schema": {
                      "enum": [
                        "ios",
                        "android"
                      ],
                      "type": "string"
                    }
                  },
                  {
                    "description": "User key.",
                    "in": "query",
                    "name": "userKey",
                    "required": false,
                    "schema": {
                      "type": "string"
                    }
                  },
                  {
                    "description": "Registration token.",
                    "in": "query",
                    "name": "token",
                    "required": false,
                    "schema": {
                      "type": "string"
                    }
                  },
                  {
                    "description": "Return items with an id above this cursor (`nextCursor` of the previous page).",
                    "in": "query",
                    "name": "after",
                    "required": false,
                    "schema": {
                      "maximum": 9223372036854775807,
                      "minimum": 0,
                      "type": "integer"
                    }
                  },
                  {
                    "description": "Page size.",
                    "in": "query",
                    "name": "limit",
                    "required": false,
                    "schema": {
                      "default": 100,
                      "maximum": 1000,
                      "minimum": 1,
                      "type": "integer"
                    }
                  }
                ],
                "responses": {
                  "200": {
                    "content": {
                      "application/json": {
                        "schema": {
                          "$ref": "#/components/schemas/DevicePage"
                        }
                      }
                    },
                    "description": "A page."
                  },
                  "400": {
                    "content": {
                      "application/json": {
                        "schema": {
                          "$ref": "#/components/schemas/Error"
                        }
                      }
                    },
                    "description": "Bad filter."
                  },
                  "401": {
                    "content": {
                      "application/json": {
                        "schema": {
                          "$ref": "#/components/schemas/Error"
                        }
                      }
                    },
                    "description": "An admin token is configured and the request has no valid `Authorization: Bearer` header."
                  },
                  "403": {
                    "content": {
                      "application/json": {
                        "schema": {
                          "$ref": "#/components/schemas/Error"
                        }
                      }
                    },
                    "description": "No admin token is configured and the client is not on loopback."
                  }
                },
                "summary": "Registered devices, oldest first. `param.<name>=<value>` filters by an additional param."
              }
            },
            "/_mock/devices/{token}": {
              "get": {
                "operationId": "showDevice",
                "parameters": [
                  {
                    "description": "Registration token.",
                    "in": "path",
                    "name": "token",
                    "required": true,
                    "schema": {
                      "minLength": 1,
                      "type": "string"
                    }
                  },
                  {
                    "description": "Integration key, when the token is in several applications.",
                    "in": "query",
                    "name": "app",
                    "required": false,
                    "schema": {
                      "type": "string"
                    }
                  }
                ],
                "responses": {
                  "200": {
                    "content": {
                      "application/json": {
                        "schema": {
                          "$ref": "#/components/schemas/Device"
                        }
                      }
                    },
                    "description": "The device."
                  },
                  "400": {
                    "content": {
                      "application/json": {
                        "schema": {
                          "$ref": "#/components/schemas/Error"
                        }
                      }
                    },
                    "description": "Bad parameter."
                  },
                  "401": {
                    "content": {
                      "application/json": {
                        "schema": {
                          "$ref": "#/components/schemas/Error"
                        }
                      }
                    },
                    "description": "An admin token is configured and the request has no valid `Authorization: Bearer` header."
                  },
                  "403": {
                    "content": {
                      "application/json": {
                        "schema": {
                          "$ref": "#/components/schemas/Error"
                        }
                      }
                    },
                    "description": "No admin token is configured and the client is not on loopback."
                  },
                  "404": {
                    "content": {
                      "application/json": {
                        "schema": {
                          "$ref": "#/components/schemas/Error"
                        }
                      }
                    },
                    "description": "No device with that token."
                  },
                  "409": {
                    "content": {
                      "application/json": {
                        "schema": {
                          "$ref": "#/components/schemas/Error"
                        }
                      }
                    },
                    "description": "The token is in several applications; add `app`."
                  }
                },
                "summary": "One device with its registration history."
              }
            },
            "/_mock/events": {
              "get": {
                "operationId": "listEvents",
                "parameters": [
                  {
                    "description": "1 (received) or 2 (opened).",
                    "in": "query",
                    "name": "tag",
                    "required": false,
                    "schema": {
                      "enum": [
                        "1",
                        "2"
                      ],
                      "type": "string"
                    }
                  },
                  {
                    "description": "receive or open.",
                    "in": "query",
                    "name": "type",
                    "required": false,
                    "schema": {
                      "enum": [
                        "receive",
                        "open"
                      ],
                      "type": "string"
                    }
                  },
                  {
                    "description": "Hex as sent, an issued decimal `_mId`, or a UUID.",
                    "in": "query",
                    "name": "messageId",
                    "required": false,
                    "schema": {
                      "pattern": "^(h?[0-9a-fA-F]{1,16}|-?[0-9]{1,18}|[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12})$",
                      "type": "string"
                    }
                  },
                  {
                    "description": "Delivery id.",
                    "in": "query",
                    "name": "deliveryId",
                    "required": false,
                    "schema": {
                      "type": "string"
                    }
                  },
                  {
                    "description": "Registration token of the linked device.",
                    "in": "query",
                    "name": "token",
                    "required": false,
                    "schema": {
                      "type": "string"
                    }
                  },
                  {
                    "description": "RFC 3339 time (`2026-11-22T17:21:28Z`) or milliseconds since 1970.",
                    "in": "query",
                    "name": "since",
                    "required": false,
                    "schema": {
                      "anyOf": [
                        {
                          "format": "date-time",
                          "type": "string"
                        },
                        {
                          "pattern": "^[0-9]{1,15}$",
                          "type": "string"
                        }
                      ]
                    }
                  },
                  {
                    "description": "Return items with an id above this cursor (`nextCursor` of the previous page).",
                    "in": "query",
                    "name": "after",
                    "required": false,
                    "schema": {
                      "maximum": 9223372036854775807,
                      "minimum": 0,
                      "type": "integer"
                    }
                  },
                  {
                    "description": "Page size.",
                    "in": "query",
                    "name": "limit",
                    "required": false,
                    "schema": {
                      "default": 100,
                      "maximum": 1000,
                      "minimum": 1,
                      "type": "integer"
                    }
                  }
                ],
                "responses": {
                  "200": {
                    "content": {
                      "application/json": {
                        "schema": {
                          "$ref": "#/components/schemas/EventPage"
                        }
                      }
                    },
                    "description": "A page."
                  },
                  "400": {
                    "content": {
                      "application/json": {
                        "schema": {
                          "$ref": "#/components/schemas/Error"
                        }
                      }
                    },
                    "description": "Bad filter."
                  },
                  "401": {
                    "content": {
                      "application/json": {
                        "schema": {
                          "$ref": "#/components/schemas/Error"
                        }
                      }
                    },
                    "description": "An admin token is configured and the request has no valid `Authorization: Bearer` header."
                  },
                  "403": {
                    "content": {
                      "application/json": {
                        "schema": {
                          "$ref": "#/components/schemas/Error"
                        }
                      }
                    },
                    "description": "No admin token is configured and the client is not on loopback."
                  }
                },
                "summary": "Tracking events, oldest first."
              }
            },
            "/_mock/faults": {
              "delete": {
                "operationId": "clearFaults",
                "responses": {
                  "200": {
                    "content": {
                      "application/json": {
                        "schema": {
                          "properties": {
                            "deleted": {
                              "type": "integer"
                            }
                          },
                          "required": [
                            "deleted"
                          ],
                          "type": "object"
                        }
                      }
                    },
                    "description": "How many."
                  },
                  "401": {
                    "content": {
                      "application/json": {
                        "schema": {
                          "$ref": "#/components/schemas/Error"
                        }
                      }
                    },
                    "description": "An admin token is configured and the request has no valid `Authorization: Bearer` header."
                  },
                  "403": {
                    "content": {
                      "application/json": {
                        "schema": {
                          "$ref": "#/components/schemas/Error"
                        }
                      }
                    },
                    "description": "No admin token is configured and the client is not on loopback."
                  }
                },
                "summary": "Remove every fault rule."
              },
              "get": {
                "operationId": "listFaults",
                "responses": {
                  "200": {
                    "content": {
                      "application/json": {
                        "schema": {
                          "$ref": "#/components/schemas/FaultList"
                        }
                      }
                    },
                    "description": "The rules."
                  },
                  "401": {
                    "content": {
                      "application/json": {
                        "schema": {
                          "$ref": "#/components/schemas/Error"
                        }
                      }
                    },
                    "description": "An admin token is configured and the request has no valid `Authorization: Bearer` header."
                  },
                  "403": {
                    "content": {
                      "application/json": {
                        "schema": {
                          "$ref": "#/components/schemas/Error"
                        }
                      }
                    },
                    "description": "No admin token is configured and the client is not on loopback."
                  }
                },
                "summary": "Fault rules with their match and fire counts."
              },
              "post": {
                "operationId": "addFault",
                "requestBody": {
                  "content": {
                    "application/json": {
                      "schema": {
                        "$ref": "#/components/schemas/FaultRule"
                      }
                    }
                  },
                  "required": true
                },
                "responses": {
                  "201": {
                    "content": {
                      "application/json": {
                        "schema": {
                          "$ref": "#/components/schemas/FaultRule"
                        }
                      }
                    },
                    "description": "Added, with its id."
                  },
                  "400": {
                    "content": {
                      "application/json": {
                        "schema": {
                          "$ref": "#/components/schemas/Error"
                        }
                      }
                    },
                    "description": "Invalid rule."
                  },
                  "401": {
                    "content": {
                      "application/json": {
                        "schema": {
                          "$ref": "#/components/schemas/Error"
                        }
                      }
                    },
                    "description": "An admin token is configured and the request has no valid `Authorization: Bearer` header."
                  },
                  "403": {
                    "content": {
                      "application/json": {
                        "schema": {
                          "$ref": "#/components/schemas/Error"
                        }
                      }
                    },
                    "description": "No admin token is configured and the client is not on loopback."
                  },
                  "409": {
                    "content": {
                      "application/json": {
                        "schema": {
                          "$ref": "#/components/schemas/Error"
                        }
                      }
                    },
                    "description": "A rule with that id exists already."
                  }
                },
                "summary": "Add a fault rule."
              }
            },
            "/_mock/faults/{id}": {
              "delete": {
                "operationId": "deleteFault",
                "parameters": [
                  {
                    "description": "Rule id.",
                    "in": "path",
                    "name": "id",
                    "required": true,
                    "schema": {
                      "pattern": "^[A-Za-z0-9_.-]{1,64}$",
                      "type": "string"
                    }
                  }
                ],
                "responses": {
                  "200": {
                    "content": {
                      "application/json": {
                        "schema": {
                          "properties": {
                            "deleted": {
                              "type": "string"
                            }
                          },
                          "required": [
                            "deleted"
                          ],
                          "type": "object"
                        }
                      }
                    },
                    "description": "Removed."
                  },
                  "401": {
                    "content": {
                      "application/json": {
                        "schema": {
                          "$ref": "#/components/schemas/Error"
                        }
                      }
                    },
                    "description": "An admin token is configured and the request has no valid `Authorization: Bearer` header."
                  },
                  "403": {
                    "content": {
                      "application/json": {
                        "schema": {
                          "$ref": "#/components/schemas/Error"
                        }
                      }
                    },
                    "description": "No admin token is configured and the client is not on loopback."
                  },
                  "404": {
                    "content": {
                      "application/json": {
                        "schema": {
                          "$ref": "#/components/schemas/Error"
                        }
                      }
                    },
                    "description": "No such rule."
                  }
                },
                "summary": "Remove one fault rule."
              }
            },
            "/_mock/health": {
              "get": {
                "operationId": "health",
                "responses": {
                  "200": {
                    "content": {
                      "application/json": {
                        "schema": {
                          "$ref": "#/components/schemas/Health"
                        }
                      }
                    },
                    "description": "Alive."
                  }
                },
                "summary": "Liveness, version and uptime. Needs no token."
              }
            },
            "/_mock/metrics": {
              "get": {
                "operationId": "metrics",
                "responses": {
                  "200": {
                    "content": {
                      "text/plain": {
                        "schema": {
                          "type": "string"
                        }
                      }
                    },
                    "description": "Text exposition format 0.0.4."
                  },
                  "401": {
                    "content": {
                      "application/json": {
                        "schema": {
                          "$ref": "#/components/schemas/Error"
                        }
                      }
                    },
                    "description": "An admin token is configured and the request has no valid `Authorization: Bearer` header."
                  },
                  "403": {
                    "content": {
                      "application/json": {
                        "schema": {
                          "$ref": "#/components/schemas/Error"
                        }
                      }
                    },
                    "description": "No admin token is configured and the client is not on loopback."
                  }
                },
                "summary": "Prometheus metrics."
              }
            },
            "/_mock/openapi.json": {
              "get": {
                "operationId": "openapi",
                "responses": {
                  "200": {
                    "content": {
                      "application/json": {
                        "schema": {
                          "type": "object"
                        }
                      }
                    },
                    "description": "OpenAPI 3.1."
                  },
                  "401": {
                    "content": {
                      "application/json": {
                        "schema": {
                          "$ref": "#/components/schemas/Error"
                        }
                      }
                    },
                    "description": "An admin token is configured and the request has no valid `Authorization: Bearer` header."
                  },
                  "403": {
                    "content": {
                      "application/json": {
                        "schema": {
                          "$ref": "#/components/schemas/Error"
                        }
                      }
                    },
                    "description": "No admin token is configured and the client is not on loopback."
                  }
                },
                "summary": "This document."
              }
            },
            "/_mock/push": {
              "post": {
                "operationId": "push",
                "requestBody": {
                  "content": {
                    "application/json": {
                      "schema": {
                        "$ref": "#/components/schemas/PushRequest"
                      }
                    }
                  },
                  "required": true
                },
                "responses": {
                  "201": {
                    "content": {
                      "application/json": {
                        "schema": {
                          "$ref": "#/components/schemas/ComposedPush"
                        }
                      }
                    },
                    "description": "The composed push."
                  },
                  "400": {
                    "content": {
                      "application/json": {
                        "schema": {
                          "$ref": "#/components/schemas/Error"
                        }
                      }
                    },
                    "description": "Invalid request or payload over 4 KB."
                  },
                  "401": {
                    "content": {
                      "application/json": {
                        "schema": {
                          "$ref": "#/components/schemas/Error"
                        }
                      }
                    },
                    "description": "An admin token is configured and the request has no valid `Authorization: Bearer` header."
                  },
                  "403": {
                    "content": {
                      "application/json": {
                        "schema": {
                          "$ref": "#/components/schemas/Error"
                        }
                      }
                    },
                    "description": "No admin token is configured and the client is not on loopback."
                  },
                  "404": {
                    "content": {
                      "application/json": {
                        "schema": {
                          "$ref": "#/components/schemas/Error"
                        }
                      }
                    },
                    "description": "No device matches."
                  }
                },
                "summary": "Compose a notification for registered devices: APNs, .apns file, simctl line, FCM message, adb lines."
              }
            },
            "/_mock/push/{id}": {
              "get": {
                "operationId": "showPush",
                "parameters": [
                  {
                    "description": "Push id.",
                    "in": "path",
                    "name": "id",
                    "required": true,
                    "schema": {
                      "minimum": 1,
                      "type": "integer"
                    }
                  }
                ],
                "responses": {
                  "200": {
                    "content": {
                      "application/json": {
                        "schema": {
                          "$ref": "#/components/schemas/ComposedPush"
                        }
                      }
                    },
                    "description": "The push."
                  },
                  "401": {
                    "content": {
                      "application/json": {
                        "schema": {
                          "$ref": "#/components/schemas/Error"
                        }
                      }
                    },
                    "description": "An admin token is configured and the request has no valid `Authorization: Bearer` header."
                  },
                  "403": {
                    "content": {
                      "application/json": {
                        "schema": {
                          "$ref": "#/components/schemas/Error"
                        }
                      }
                    },
                    "description": "No admin token is configured and the client is not on loopback."
                  },
                  "404": {
                    "content": {
                      "application/json": {
                        "schema": {
                          "$ref": "#/components/schemas/Error"
                        }
                      }
                    },
                    "description": "No such push."
                  }
                },
                "summary": "A composed push again."
              }
            },
            "/_mock/ready": {
              "get": {
                "operationId": "ready",
                "responses": {
                  "200": {
                    "content": {
                      "application/json": {
                        "schema": {
                          "$ref": "#/components/schemas/Ready"
                        }
                      }
                    },
                    "description": "Ready."
                  },
                  "503": {
                    "content": {
                      "application/json": {
                        "schema": {
                          "$ref": "#/components/schemas/Error"
                        }
                      }
                    },
                    "description": "Shutting down."
                  }
                },
                "summary": "Readiness: 200 while taking traffic. Needs no token."
              }
            },
            "/_mock/requests": {
              "delete": {
                "operationId": "clearRequests",
                "responses": {
                  "200": {
                    "content": {
                      "application/json": {
                        "schema": {
                          "properties": {
                            "deleted": {
                              "type": "integer"
                            }
                          },
                          "required": [
                            "deleted"
                          ],
                          "type": "object"
                        }
                      }
                    },
                    "description": "Deleted."
                  },
                  "401": {
                    "content": {
                      "application/json": {
                        "schema": {
                          "$ref": "#/components/schemas/Error"
                        }
                      }
                    },
                    "description": "An admin token is configured and the request has no valid `Authorization: Bearer` header."
                  },
                  "403": {
                    "content": {
                      "application/json": {
                        "schema": {
                          "$ref": "#/components/schemas/Error"
                        }
                      }
                    },
                    "description": "No admin token is configured and the client is not on loopback."
                  }
                },
                "summary": "Empty the journal and its dropped count."
              },
              "get": {
                "operationId": "listRequests",
                "parameters": [
                  {
                    "description": "Return items with an id above this cursor (`nextCursor` of the previous page).",
                    "in": "query",
                    "name": "after",
                    "required": false,
                    "schema": {
                      "maximum": 9223372036854775807,
                      "minimum": 0,
                      "type": "integer"
                    }
                  },
                  {
                    "description": "Page size.",
                    "in": "query",
                    "name": "limit",
                    "required": false,
                    "schema": {
                      "default": 100,
                      "maximum": 1000,
                      "minimum": 1,
                      "type": "integer"
                    }
                  },
                  {
                    "description": "Endpoint family.",
                    "in": "query",
                    "name": "endpoint",
                    "required": false,
                    "schema": {
                      "type": "string"
                    }
                  },
                  {
                    "description": "HTTP status.",
                    "in": "query",
                    "name": "status",
                    "required": false,
                    "schema": {
                      "maximum": 599,
                      "minimum": 0,
                      "type": "integer"
                    }
                  },
                  {
                    "description": "Integration key the request named.",
                    "in": "query",
                    "name": "app",
                    "required": false,
                    "schema": {
                      "type": "string"
                    }
                  },
                  {
                    "description": "RFC 3339 time (`2026-11-22T17:21:28Z`) or milliseconds since 1970.",
                    "in": "query",
                    "name": "since",
                    "required": false,
                    "schema": {
                      "anyOf": [
                        {
                          "format": "date-time",
                          "type": "string"
                        },
                        {
                          "pattern": "^[0-9]{1,15}$",
                          "type": "string"
                        }
                      ]
                    }
                  }
                ],
                "responses": {
                  "200": {
                    "content": {
                      "application/json": {
                        "schema": {
                          "$ref": "#/components/schemas/JournalPage"
                        }
                      }
                    },
                    "description": "A page."
                  },
                  "400": {
                    "content": {
                      "application/json": {
                        "schema": {
                          "$ref": "#/components/schemas/Error"
                        }
                      }
                    },
                    "description": "Bad parameter."
                  },
                  "401": {
                    "content": {
                      "application/json": {
                        "schema": {
                          "$ref": "#/components/schemas/Error"
                        }
                      }
                    },
                    "description": "An admin token is configured and the request has no valid `Authorization: Bearer` header."
                  },
                  "403": {
                    "content": {
                      "application/json": {
                        "schema": {
                          "$ref": "#/components/schemas/Error"
                        }
                      }
                    },
                    "description": "No admin token is configured and the client is not on loopback."
                  }
                },
                "summary": "The request journal, oldest first."
              }
            },
            "/_mock/reset": {
              "post": {
                "operationId": "reset",
                "parameters": [
                  {
                    "description": "Comma-separated: journal, events, devices, recipients, faults.",
                    "in": "query",
                    "name": "only",
                    "required": false,
                    "schema": {
                      "pattern": "^(journal|events|devices|recipients|faults)(,(journal|events|devices|recipients|faults))*$",
                      "type": "string"
                    }
                  },
                  {
                    "description": "Integration key.",
                    "in": "query",
                    "name": "app",
                    "required": false,
                    "schema": {
                      "type": "string"
                    }
                  }
                ],
                "responses": {
                  "200": {
                    "content": {
                      "application/json": {
                        "schema": {
                          "$ref": "#/components/schemas/ResetResult"
                        }
                      }
                    },
                    "description": "What was deleted."
                  },
                  "400": {
                    "content": {
                      "application/json": {
                        "schema": {
                          "$ref": "#/components/schemas/Error"
                        }
                      }
                    },
                    "description": "Bad parameter."
                  },
                  "401": {
                    "content": {
                      "application/json": {
                        "schema": {
                          "$ref": "#/components/schemas/Error"
                        }
                      }
                    },
                    "description": "An admin token is configured and the request has no valid `Authorization: Bearer` header."
                  },
                  "403": {
                    "content": {
                      "application/json": {
                        "schema": {
                          "$ref": "#/components/schemas/Error"
                        }
                      }
                    },
                    "description": "No admin token is configured and the client is not on loopback."
                  },
                  "404": {
                    "content": {
                      "application/json": {
                        "schema": {
                          "$ref": "#/components/schemas/Error"
                        }
                      }
                    },
                    "description": "No such application."
                  }
                },
                "summary": "Clear state: all of it, or `only` some parts, optionally for one application."
              }
            },
            "/_mock/state": {
              "get": {
                "operationId": "exportState",
                "responses": {
                  "200": {
                    "content": {
                      "application/json": {
                        "schema": {
                          "$ref": "#/components/schemas/Snapshot"
                        }
                      }
                    },
                    "description": "The snapshot."
                  },
                  "401": {
                    "content": {
                      "application/json": {
                        "schema": {
                          "$ref": "#/components/schemas/Error"
                        }
                      }
                    },
                    "description": "An admin token is configured and the request has no valid `Authorization: Bearer` header."
                  },
                  "403": {
                    "content": {
                      "application/json": {
                        "schema": {
                          "$ref": "#/components/schemas/Error"
                        }
                      }
                    },
                    "description": "No admin token is configured and the client is not on loopback."
                  }
                },
                "summary": "Export the whole state (not the journal)."
              },
              "put": {
                "operationId": "importState",
                "requestBody": {
                  "content": {
                    "application/json": {
                      "schema": {
                        "$ref": "#/components/schemas/Snapshot"
                      }
                    }
                  },
                  "required": true
                },
                "responses": {
                  "200": {
                    "content": {
                      "application/json": {
                        "schema": {
                          "$ref": "#/components/schemas/ImportResult"
                        }
                      }
                    },
                    "description": "Imported counts."
                  },
                  "400": {
                    "content": {
                      "application/json": {
                        "schema": {
                          "$ref": "#/components/schemas/Error"
                        }
                      }
                    },
                    "description": "Refused, nothing changed (the reason names the field)."
                  },
                  "401": {
                    "content": {
                      "application/json": {
                        "schema": {
                          "$ref": "#/components/schemas/Error"
                        }
                      }
                    },
                    "description": "An admin token is configured and the request has no valid `Authorization: Bearer` header."
                  },
                  "403": {
                    "content": {
                      "application/json": {
                        "schema": {
                          "$ref": "#/components/schemas/Error"
                        }
                      }
                    },
                    "description": "No admin token is configured and the client is not on loopback."
                  }
                },
                "summary": "Replace the whole state atomically; a bad snapshot changes nothing."
              }
            },
            "/_mock/wait": {
              "get": {
                "operationId": "wait",
                "parameters": [
                  {
                    "description": "What to wait for.",
                    "in": "query",
                    "name": "for",
                    "required": true,
                    "schema": {
                      "enum": [
                        "registration",
                        "receive",
                        "open",
                        "request"
                      ],
                      "type": "string"
                    }
                  },
                  {
                    "description": "How many.",
                    "in": "query",
                    "name": "count",
                    "required": false,
                    "schema": {
                      "default": 1,
                      "maximum": 1000,
                      "minimum": 1,
                      "type": "integer"
                    }
                  },
                  {
                    "description": "Duration: 500ms, 5s (a bare number is seconds), at most 5m.",
                    "in": "query",
                    "name": "timeout",
                    "required": false,
                    "schema": {
                      "default": "5s",
                      "type": "string"
                    }
                  },
                  {
                    "description": "RFC 3339 time (`2026-11-22T17:21:28Z`) or milliseconds since 1970.",
                    "in": "query",
                    "name": "since",
                    "required": false,
                    "schema": {
                      "anyOf": [
                        {
                          "format": "date-time",
                          "type": "string"
                        },
                        {
                          "pattern": "^[0-9]{1,15}$",
                          "type": "string"
                        }
                      ]
                    }
                  },
                  {
                    "description": "Integration key.",
                    "in": "query",
                    "name": "app",
                    "required": false,
                    "schema": {
                      "type": "string"
                    }
                  },
                  {
                    "description": "ios or android.",
                    "in": "query",
                    "name": "platform",
                    "required": false,
                    "schema": {
                      "enum": [
                        "ios",
                        "android"
                      ],
                      "type": "string"
                    }
                  },
                  {
                    "description": "User key.",
                    "in": "query",
                    "name": "userKey",
                    "required": false,
                    "schema": {
                      "type": "string"
                    }
                  },
                  {
                    "description": "Registration token.",
                    "in": "query",
                    "name": "token",
                    "required": false,
                    "schema": {
                      "type": "string"
                    }
                  },
                  {
                    "description": "For receive/open.",
                    "in": "query",
                    "name": "messageId",
                    "required": false,
                    "schema": {
                      "pattern": "^(h?[0-9a-fA-F]{1,16}|-?[0-9]{1,18}|[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12})$",
                      "type": "string"
                    }
                  },
                  {
                    "description": "For receive/open.",
                    "in": "query",
                    "name": "deliveryId",
                    "required": false,
                    "schema": {
                      "type": "string"
                    }
                  },
                  {
                    "description": "For request.",
                    "in": "query",
                    "name": "endpoint",
                    "required": false,
                    "schema": {
                      "type": "string"
                    }
                  },
                  {
                    "description": "For request.",
                    "in": "query",
                    "name": "status",
                    "required": false,
                    "schema": {
                      "type": "integer"
                    }
                  }
                ],
                "responses": {
                  "200": {
                    "content": {
                      "application/json": {
                        "schema": {
                          "$ref": "#/components/schemas/WaitAnswer"
                        }
                      }
                    },
                    "description": "Enough items."
                  },
                  "400": {
                    "content": {
                      "application/json": {
                        "schema": {
                          "$ref": "#/components/schemas/Error"
                        }
                      }
                    },
                    "description": "Bad parameter."
                  },
                  "401": {
                    "content": {
                      "application/json": {
                        "schema": {
                          "$ref": "#/components/schemas/Error"
                        }
                      }
                    },
                    "description": "An admin token is configured and the request has no valid `Authorization: Bearer` header."
                  },
                  "403": {
                    "content": {
                      "application/json": {
                        "schema": {
                          "$ref": "#/components/schemas/Error"
                        }
                      }
                    },
                    "description": "No admin token is configured and the client is not on loopback."
                  },
                  "408": {
                    "content": {
                      "application/json": {
                        "schema": {
                          "$ref": "#/components/schemas/WaitAnswer"
                        }
                      }
                    },
                    "description": "Timed out; what was seen."
                  }
                },
                "summary": "Long poll: answers as soon as `count` matching items exist after `since` (default: now), or 408."
              }
            }
          }
        }
        """#
}
