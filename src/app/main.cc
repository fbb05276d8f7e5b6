// pacer's entry point: parse, run, report, exit. Everything else is in pacer_lib.
#include "app/app.h"

int main(int argc, char** argv) { return pacer::app::main_entry(argc, argv); }
