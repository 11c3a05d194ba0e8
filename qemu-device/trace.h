#include "trace/trace-hw_net_qrnic.h"
