// CMosquitto: libmosquitto, the Eclipse Mosquitto project's MQTT client library, with the
// MQTT protocol constants (property identifiers, protocol versions) it uses.
#ifndef CMOSQUITTO_SHIM_H
#define CMOSQUITTO_SHIM_H

#include <mosquitto.h>
#include <mqtt_protocol.h>

#endif
