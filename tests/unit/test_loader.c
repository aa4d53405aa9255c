/* placeholder until the loader suite lands */ int main(void){return 0;}
